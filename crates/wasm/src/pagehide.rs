//! A `pagehide` listener on the window: the page is going away (closed, navigated,
//! put in the back-forward cache). Removed on drop. `None` where there is no window
//! (a worker has no page to hide).

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub(crate) struct PageHide {
    window: web_sys::Window,
    on_hide: Closure<dyn FnMut()>,
}

impl PageHide {
    pub(crate) fn listen(mut on_hide: impl FnMut() + 'static) -> Option<PageHide> {
        let window = web_sys::window()?;
        let on_hide = Closure::<dyn FnMut()>::new(move || {
            if !crate::poison::poisoned() {
                on_hide()
            }
        });
        window
            .add_event_listener_with_callback("pagehide", on_hide.as_ref().unchecked_ref())
            .ok()?;
        Some(PageHide { window, on_hide })
    }
}

impl Drop for PageHide {
    fn drop(&mut self) {
        let _ = self
            .window
            .remove_event_listener_with_callback("pagehide", self.on_hide.as_ref().unchecked_ref());
    }
}
