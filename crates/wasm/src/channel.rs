//! A same-origin `BroadcastChannel`: post a message to every other context of this
//! origin (other tabs, workers, other `Gate`s in this page), receive theirs. Closing
//! is dropping: the listener is removed and the channel closed.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The channel every toolgate `Gate` of an origin shares.
pub(crate) const CHANNEL_NAME: &str = "toolgate";

pub(crate) struct Channel {
    channel: web_sys::BroadcastChannel,
    on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl Channel {
    /// Opens `name` and calls `receive` with each message's `data`. `None` where
    /// there is no `BroadcastChannel` (or it cannot be opened, e.g. an opaque origin):
    /// polling still sees every change.
    pub(crate) fn open(name: &str, mut receive: impl FnMut(JsValue) + 'static) -> Option<Channel> {
        let channel = web_sys::BroadcastChannel::new(name).ok()?;
        let on_message =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                if !crate::poison::poisoned() {
                    receive(e.data())
                }
            });
        channel
            .add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref())
            .ok()?;
        Some(Channel {
            channel,
            on_message,
        })
    }

    /// Posts `message` (structured-cloned). A closed channel or an uncloneable
    /// message is dropped: notification is best effort, polling is the truth.
    pub(crate) fn post(&self, message: &JsValue) {
        let _ = self.channel.post_message(message);
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        let _ = self.channel.remove_event_listener_with_callback(
            "message",
            self.on_message.as_ref().unchecked_ref(),
        );
        self.channel.close();
    }
}
