import Foundation
import Synchronization

/// Where a ``ConnectionKeeper`` listens, and how to start one there when none does.
public final class KeeperAddress: Sendable {
    public let socketPath: String
    /// The keeper's command line: an executable and its arguments.
    private let launch: [String]
    /// Environment variables not handed on to the keeper (those holding secrets: it gets what it needs on its socket).
    private let withheld: Set<String>
    private let launched = Mutex(false)

    /// - Parameters:
    ///   - socketPath: the socket, in a folder only this user may enter (checked here; created when missing).
    ///   - launch: the command that serves at `socketPath` (`keel keep-connections …`), started in a session of its
    ///     own so that a terminal's Ctrl-C does not reach it.
    ///   - withheld: the environment variables of this process the keeper must not inherit.
    /// - Throws: when the folder is not private or the path too long for a socket: keep no connections then.
    public init(socketPath: String, launch: [String], withholding withheld: Set<String> = []) throws {
        guard socketPath.utf8.count <= UnixSocket.maxPathLength else {
            throw KeeperError("\(socketPath) is too long for a unix socket")
        }
        try UnixSocket.prepareFolder((socketPath as NSString).deletingLastPathComponent)
        self.socketPath = socketPath
        self.launch = launch
        self.withheld = withheld
    }

    /// A socket connected to the keeper, started first when none answers; nil when none answers within 2 s.
    func connect() -> Int32? {
        if let socket = UnixSocket.connect(to: socketPath) { return socket }
        start()
        for _ in 0..<100 {
            usleep(20_000)
            if let socket = UnixSocket.connect(to: socketPath) { return socket }
        }
        return nil
    }

    /// Starts the keeper once per process, its standard streams on /dev/null.
    private func start() {
        let first = launched.withLock { launched in
            defer { launched = true }
            return !launched
        }
        guard first, let executable = launch.first else { return }
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        posix_spawnattr_init(&attributes)
        posix_spawn_file_actions_init(&actions)
        defer {
            posix_spawnattr_destroy(&attributes)
            posix_spawn_file_actions_destroy(&actions)
        }
        // POSIX_SPAWN_SETSID (glibc's 0x80, which Swift does not import): a session of its own.
        posix_spawnattr_setflags(&attributes, 0x80)
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var arguments = launch.map { strdup($0) }
        arguments.append(nil)
        var environment = ProcessInfo.processInfo.environment
            .filter { !withheld.contains($0.key) }
            .map { strdup("\($0.key)=\($0.value)") }
        environment.append(nil)
        defer { (arguments + environment).forEach { free($0) } }
        var pid = pid_t()
        _ = posix_spawn(&pid, executable, &actions, &attributes, arguments, environment)
    }
}
