//! Unit tests of the model that span its modules, one file per topic.

mod study;
