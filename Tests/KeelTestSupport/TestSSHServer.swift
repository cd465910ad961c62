import Foundation

/// A real OpenSSH server on 127.0.0.1, with its own config, host keys and high port, for transport tests.
///
/// Each server is started for one test and stopped when it ends:
/// ```swift
/// try await TestSSHServer.with { server in
///     let connection = try await SSHConnection.connect(server.configuration())
/// }
/// ```
/// As root it logs in a dedicated user `keel-test` whose shell is `/bin/sh` and who may `sudo` without a
/// password (root's own shell start-up files can cost 200 ms a command); otherwise it logs in the current user.
public final class TestSSHServer: Sendable {
    public let port: Int
    public let user: String
    public let keys: TestKeys
    public let directory: URL
    private let pid: pid_t

    /// Starts a server, runs `body`, and stops the server however `body` ends.
    public static func with<T>(maxSessions: Int? = nil, _ body: (TestSSHServer) async throws -> T) async throws -> T {
        let server = try TestSSHServer(maxSessions: maxSessions)
        defer { server.stop() }
        return try await body(server)
    }

    private init(maxSessions: Int?) throws {
        keys = try TestKeys.shared()
        user = try TestUser.shared()
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        // A port found free can be taken (by any outgoing connection) before sshd binds it: sshd then exits, and
        // the server starts again on another port.
        var attempt = 1
        while true {
            let (port, directory) = (try FreePort.find(), FileManager.default.temporaryDirectory)
            let own = directory.appendingPathComponent("keel-sshd-\(port)-\(UUID().uuidString.prefix(8))")
            let pid = try Self.start(on: port, in: own, keys: keys, maxSessions: maxSessions)
            if (try? FreePort.waitUntilListening(port, timeout: 10, while: pid)) != nil {
                (self.port, self.directory, self.pid) = (port, own, pid)
                return
            }
            kill(pid, SIGTERM)
            _ = Shell.wait(pid)
            let log = (try? String(contentsOf: own.appendingPathComponent("sshd.log"), encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: own)
            guard attempt < 5 else {
                throw Shell.ShellError(
                    description: "sshd did not start on 127.0.0.1:\(port) (attempt \(attempt)): \(log)")
            }
            attempt += 1
        }
    }

    /// Writes the server's configuration into `directory` and starts sshd with it on `port`.
    private static func start(on port: Int, in directory: URL, keys: TestKeys, maxSessions: Int?) throws -> pid_t {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(keys.hostEd25519)
            HostKey \(keys.hostECDSA)
            PidFile \(directory.path)/sshd.pid
            AuthorizedKeysFile \(keys.authorizedKeys)
            UsePAM no
            StrictModes no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin yes
            Subsystem sftp internal-sftp
            LogLevel ERROR

            """
        if let maxSessions { config += "MaxSessions \(maxSessions)\n" }
        let configPath = directory.appendingPathComponent("sshd_config").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        return try Shell.spawn(
            "/usr/sbin/sshd", ["-D", "-f", configPath, "-E", directory.appendingPathComponent("sshd.log").path])
    }

    /// Stops the server and removes its files.
    public func stop() {
        kill(pid, SIGTERM)
        _ = Shell.wait(pid)
        try? FileManager.default.removeItem(at: directory)
    }

    /// A known_hosts file holding this server's real ed25519 host key.
    public func knownHosts() throws -> String {
        let path = directory.appendingPathComponent("known_hosts-\(UUID().uuidString.prefix(8))").path
        try "[127.0.0.1]:\(port) \(try publicKey(keys.hostEd25519))\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The public key beside the private key file `key`, as known_hosts writes it: its type and base64 body.
    public func publicKey(_ key: String) throws -> String {
        try String(contentsOfFile: key + ".pub", encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
    }

    /// A path in this server's directory where no file exists yet.
    public func freshPath(_ name: String) -> String {
        directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))").path
    }
}

/// Key pairs generated once per test run: host keys, and client keys of each kind the tests need.
public struct TestKeys: Sendable {
    public let directory: String
    public var hostEd25519: String { directory + "/host_ed25519" }
    public var hostECDSA: String { directory + "/host_ecdsa" }
    /// Authorized, no passphrase.
    public var clientEd25519: String { directory + "/id_ed25519" }
    /// Authorized, protected by ``passphrase``.
    public var clientEncrypted: String { directory + "/id_ed25519_encrypted" }
    /// Authorized, but RSA: libssh2 1.10 can only sign it with SHA-1, which the server refuses.
    public var clientRSA: String { directory + "/id_rsa" }
    /// Valid, but not authorized.
    public var clientStranger: String { directory + "/id_stranger" }
    public var authorizedKeys: String { directory + "/authorized_keys" }
    public let passphrase = "correct horse battery staple"

    private static let generated = Result {
        try TestKeys(
            generatingIn: FileManager.default.temporaryDirectory.appendingPathComponent("keel-test-keys-\(getpid())")
                .path)
    }

    public static func shared() throws -> TestKeys { try generated.get() }

    private init(generatingIn directory: String) throws {
        self.directory = directory
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func keygen(_ path: String, _ type: String, passphrase: String = "", bits: [String] = []) throws {
            try Shell.run(
                "/usr/bin/ssh-keygen", ["-q", "-t", type] + bits + ["-N", passphrase, "-C", "keel-test", "-f", path])
        }
        try keygen(hostEd25519, "ed25519")
        try keygen(hostECDSA, "ecdsa")
        try keygen(clientEd25519, "ed25519")
        try keygen(clientEncrypted, "ed25519", passphrase: passphrase)
        try keygen(clientRSA, "rsa", bits: ["-b", "2048"])
        try keygen(clientStranger, "ed25519")
        let authorized = try [clientEd25519, clientEncrypted, clientRSA]
            .map { try String(contentsOfFile: $0 + ".pub", encoding: .utf8) }
            .joined()
        try authorized.write(toFile: authorizedKeys, atomically: true, encoding: .utf8)
        // Keys are read by sshd as the test user, and private keys must not be group-readable for ssh.
        try Shell.run("/bin/chmod", ["-R", "go+rX", directory])
        for key in [hostEd25519, hostECDSA, clientEd25519, clientEncrypted, clientRSA, clientStranger] {
            try Shell.run("/bin/chmod", ["600", key])
        }
    }
}

/// The account the test server logs in.
public enum TestUser {
    public static let name = "keel-test"

    private static let prepared = Result { try prepare() }

    /// The user name, the account created and configured on first use.
    public static func shared() throws -> String { try prepared.get() }

    private static func prepare() throws -> String {
        guard getuid() == 0 else { return ProcessInfo.processInfo.environment["USER"] ?? NSUserName() }
        if getpwnam(name) == nil {
            try Shell.run("/usr/sbin/useradd", ["-m", "-s", "/bin/sh", name])
        }
        try Shell.run("/usr/sbin/usermod", ["-p", "*", "-s", "/bin/sh", name])
        let sudoers = "/etc/sudoers.d/keel-test"
        if !FileManager.default.fileExists(atPath: sudoers), FileManager.default.fileExists(atPath: "/etc/sudoers.d") {
            try "\(name) ALL=(ALL) NOPASSWD: ALL\n".write(toFile: sudoers, atomically: true, encoding: .utf8)
            try Shell.run("/bin/chmod", ["440", sudoers])
        }
        return name
    }

    /// Whether `sudo` works for the test user (root running the tests, sudo installed).
    public static var canBecomeRoot: Bool {
        getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/sudo")
    }
}

/// Runs local programs with `posix_spawn` and `waitpid`: Foundation's `Process` on Linux can stall reaping
/// children while a long-running one (an sshd) is alive.
public enum Shell {
    /// Writes an executable script through a close-on-exec descriptor: a process another test forks meanwhile
    /// must not keep it open for writing, which would make running it fail with "text file busy".
    public static func writeExecutable(_ path: String, _ contents: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(fd) }
        let bytes = Array(contents.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// Runs `executable` to completion and returns its combined output; throws when it exits non-zero.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> String {
        let result = try capture(executable, arguments, input: input)
        guard result.status == 0 else {
            throw ShellError(
                description:
                    "\(executable) \(arguments.joined(separator: " ")) exited \(result.status): \(result.output)")
        }
        return result.output
    }

    /// Like ``capture(_:_:input:environment:)``, but waits on a thread of its own, so that long runs (a deploy
    /// on the lab) do not hold one of the few threads of Swift's cooperative pool.
    public static func captureAsync(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try capture(executable, arguments, environment: environment) })
            }.start()
        }
    }

    /// Runs `executable` to completion; returns its exit status and its stdout and stderr together.
    public static func capture(
        _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil
    ) throws -> (status: Int32, output: String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputPath = scratch.appendingPathComponent("in").path
        let outputPath = scratch.appendingPathComponent("out").path
        try (input ?? "").write(toFile: inputPath, atomically: true, encoding: .utf8)
        let pid = try spawn(executable, arguments, stdin: inputPath, output: outputPath, environment: environment)
        let status = wait(pid)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (status, output)
    }

    /// Starts `executable` without waiting; stdin from `stdin`, stdout and stderr to `output` (default /dev/null).
    public static func spawn(
        _ executable: String, _ arguments: [String], stdin: String = "/dev/null", output: String = "/dev/null",
        environment: [String: String]? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0)=\($1)" }
        // The child starts with no signal blocked or ignored: this process's threads block some, and a server the
        // child leaves running (the lab's mirror) must still stop on SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environmentLines.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else {
            throw ShellError(description: "cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        return pid
    }

    /// Waits for `pid` to end; returns its exit status (128 + signal when killed).
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    public struct ShellError: Error, CustomStringConvertible {
        public let description: String
    }
}

/// Finds unused loopback ports and waits for servers to listen on them.
public enum FreePort {
    public static func find() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw Shell.ShellError(description: "cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits until something listens on `port`; with `process`, gives up as soon as that process has exited.
    public static func waitUntilListening(_ port: Int, timeout: TimeInterval, while process: pid_t? = nil) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if isListening(port) { return }
            if let process, kill(process, 0) != 0 || isZombie(process) {
                throw Shell.ShellError(description: "the process meant to listen on 127.0.0.1:\(port) exited")
            }
            usleep(20_000)
        }
        throw Shell.ShellError(description: "nothing listens on 127.0.0.1:\(port) after \(timeout) s")
    }

    /// Whether `process` (a child of this one) has exited and waits to be reaped.
    private static func isZombie(_ process: pid_t) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? true
    }

    public static func waitForFile(_ path: String, timeout: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: path) { return }
            usleep(20_000)
        }
        throw Shell.ShellError(description: "\(path) did not appear within \(timeout) s")
    }

    public static func isListening(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
