//! clir runtime
