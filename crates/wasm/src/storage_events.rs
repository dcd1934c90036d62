//! `storage` events: another document of this origin wrote `localStorage`.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A `storage` event listener on the global object: `receive` gets each event's `key`
/// (`None` for `localStorage.clear()`). The event fires in *other* documents of the
/// origin once a write is visible to them. Removed on drop. `None` where the global
/// object is not an event target (nothing to hear).
pub(crate) struct StorageEvents {
    target: web_sys::EventTarget,
    on_storage: Closure<dyn FnMut(web_sys::Event)>,
}

impl StorageEvents {
    pub(crate) fn listen(
        mut receive: impl FnMut(Option<String>) + 'static,
    ) -> Option<StorageEvents> {
        let target = js_sys::global().dyn_into::<web_sys::EventTarget>().ok()?;
        let on_storage = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            if crate::poison::poisoned() {
                return;
            }
            let key = js_sys::Reflect::get(&e, &"key".into()).ok();
            receive(key.and_then(|k| k.as_string()));
        });
        target
            .add_event_listener_with_callback("storage", on_storage.as_ref().unchecked_ref())
            .ok()?;
        Some(StorageEvents { target, on_storage })
    }
}

impl Drop for StorageEvents {
    fn drop(&mut self) {
        let _ = self.target.remove_event_listener_with_callback(
            "storage",
            self.on_storage.as_ref().unchecked_ref(),
        );
    }
}
