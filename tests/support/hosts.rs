//! A hostfile for `clir stream --processes N`: free loopback ports, one a process. Included
//! with `#[path]` by the stream tests and benchmark.

/// Writes `dir/hosts` with one free `127.0.0.1:PORT` a line for `processes` processes.
pub fn hostfile(dir: &std::path::Path, processes: usize) -> std::path::PathBuf {
    let listeners: Vec<std::net::TcpListener> =
        (0..processes).map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    let hosts: Vec<String> = listeners.iter().map(|l| l.local_addr().unwrap().to_string()).collect();
    let path = dir.join("hosts");
    std::fs::write(&path, hosts.join("\n")).unwrap();
    path
}

/// Writes `dir/cluster.key`, a key for `clir stream --cluster-key` that only its owner can read.
pub fn cluster_key(dir: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("cluster.key");
    std::fs::write(&path, "a test key of the stream cluster\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path
}
