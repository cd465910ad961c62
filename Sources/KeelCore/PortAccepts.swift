extension ShellCommand {
    /// Succeeds when `host` accepts a TCP connection on `port` within two seconds (bash's `/dev/tcp`). A closed port
    /// fails at once: asked first, it spares a client that would retry until its own timeout (etcdctl waits seconds
    /// for a member that is not started yet).
    public static func portAccepts(_ host: String, _ port: Int) -> ShellCommand {
        let socket = ": </dev/tcp/\(host)/\(port)"
        return "timeout 2 bash -c \(socket) 2>/dev/null"
    }
}
