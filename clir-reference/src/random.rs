//! Random valid packages and cases (placeholder).
