//! Deterministic Kubernetes-shaped inputs for the criterion benches.
