//! The pure store of watched objects and the display-neutral view models built from it.
pub mod events;
pub mod store;
