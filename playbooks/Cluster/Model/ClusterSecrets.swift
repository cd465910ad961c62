import Foundation
import Keel

/// Passwords the inventory leaves empty and SSH keys between hosts, generated on first deploy and kept in a file
/// beside the inventory (`.keel-secrets.yml`, mode 0600), so that every later run uses the same ones. Never printed.
///
/// A file that exists but cannot be read stops the run: it is never regenerated, overwritten or deleted. A run that
/// may write it holds a lock beside it, so that two deploys never generate secrets for the same cluster at once.
public final class ClusterSecrets: @unchecked Sendable {
    public let path: String
    private var values: [String: String]
    private var dirty = false
    /// The names read from the file.
    private var stored: Set<String> = []
    /// The secrets a read-only run asked for and the file lacks.
    private var lacking: Set<String> = []
    /// Whether the file was there when the run began.
    private let existed: Bool
    /// Whether secrets missing from the file are left empty instead of generated (for commands that only read).
    private let readOnly: Bool
    /// The lock held for the whole run when it may write the file (closed, and so released, with this object).
    private let lockDescriptor: Int32?
    private let lock = NSLock()

    /// Reads the secrets file next to `inventoryPath`, if there is one. With `readOnly`, nothing is generated:
    /// a secret the file lacks is empty.
    /// - Throws: when the file exists but cannot be read or parsed, or another run holds its lock.
    public init(besideInventory inventoryPath: String, readOnly: Bool = false) throws {
        self.readOnly = readOnly
        path = ((inventoryPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(
            ".keel-secrets.yml")
        lockDescriptor = readOnly ? nil : try Self.takeLock(path + ".lock")
        values = [:]
        var status = stat()
        existed = lstat(path, &status) == 0
        guard existed else { return }
        values = try Self.read(path)
        stored = Set(values.keys)
    }

    deinit { if let lockDescriptor { close(lockDescriptor) } }

    /// The `name: value` lines of the file at `path`.
    private static func read(_ path: String) throws -> [String: String] {
        let advice = "fix it or restore it from a backup; Keel never replaces a secrets file it cannot read"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ResourceError(
                "\(path) exists but cannot be read (\(String(cString: strerror(errno)))); \(advice), "
                    + "or run keel as the account that owns it")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ResourceError("\(path) is not UTF-8 text; \(advice)")
        }
        var values: [String: String] = [:]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty && !line.hasPrefix("#") {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw ResourceError("\(path):\(index + 1): expected NAME: VALUE; \(advice)")
            }
            values[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return values
    }

    /// An exclusive lock on `path`, or an error naming the run that holds it.
    private static func takeLock(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ResourceError("cannot open the lock \(path): \(String(cString: strerror(errno)))")
        }
        // A moment's grace: a process forked elsewhere may hold a copy of a just-released lock until it execs.
        var locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0
        for _ in 0..<40 where !locked {
            usleep(50_000)
            locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0
        }
        guard locked else {
            close(descriptor)
            throw ResourceError(
                "another keel run holds \(path) for this inventory; wait until it ends (two runs must not both generate secrets)"
            )
        }
        return descriptor
    }

    /// The name in the file of the password of `postgresql_users` entry `user`, when the inventory leaves it empty.
    public static func userPassword(_ user: String) -> String { "user_\(user)" }
    /// The name in the file of keepalived's VRRP password.
    public static let vrrpPassword = "vrrp_auth_pass"
    /// The name in the file of the password of HAProxy's stats page.
    public static let haproxyStatsPassword = "haproxy_stats_password"
    /// The name in the file of the password Prometheus gives the exporters.
    public static let monitoringScrapePassword = "monitoring_scrape_password"
    /// The name in the file of the secret the scrape password's bcrypt hash is salted with.
    public static let monitoringScrapeSalt = "monitoring_scrape_salt"
    /// The name in the file of the password of the exporters' PostgreSQL and PgBouncer role.
    public static let monitoringRolePassword = "monitoring_role_password"

    /// The names of the secrets this run generated, sorted: right for a new cluster, fatal for a running one.
    public var generated: [String] {
        lock.lock()
        defer { lock.unlock() }
        return values.keys.filter { !stored.contains($0) }.sorted()
    }

    /// The stored secret `name`, or a new strong one (32 characters from 62, about 190 bits) remembered for saving.
    public func password(for name: String) -> Secret {
        lock.lock()
        defer { lock.unlock() }
        if let value = values[name] { return Secret(value) }
        if readOnly {
            lacking.insert(name)
            return Secret("")
        }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        let value = String((0..<32).map { _ in alphabet.randomElement(using: &generator)! })
        values[name] = value
        dirty = true
        return Secret(value)
    }

    /// Whether this run may make secrets the file lacks (not a command that only reads).
    public var mayGenerate: Bool { !readOnly }

    /// The secrets a read-only run asked for and the file lacks, sorted: a flow that would render them refuses.
    public var missing: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lacking.sorted()
    }

    /// Notes that a read-only run needed `name` and the file lacks it.
    func noteMissing(_ name: String) {
        lock.lock()
        defer { lock.unlock() }
        lacking.insert(name)
    }

    /// The value kept under `name`, from the file or made by this run.
    public func stored(_ name: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return values[name].flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Keeps `value` under `name` (base64-encoded, so that it fits on one line); nothing for a read-only run.
    public func store(_ name: String, _ value: String) {
        lock.lock()
        defer { lock.unlock() }
        guard !readOnly else { return }
        values[name] = Data(value.utf8).base64EncodedString()
        dirty = true
    }

    /// The stored SSH key pair `name`, or a new one remembered for saving (the private key base64-encoded, so
    /// that it fits on one line).
    public func keyPair(for name: String) throws -> SSHKeyPair {
        lock.lock()
        defer { lock.unlock() }
        if let encoded = values["\(name)_private"], let data = Data(base64Encoded: encoded),
            let publicKey = values["\(name)_public"]
        {
            return SSHKeyPair(privateKey: Secret(String(decoding: data, as: UTF8.self)), publicKey: publicKey)
        }
        if readOnly {
            lacking.insert(name)
            return SSHKeyPair(privateKey: Secret(""), publicKey: "")
        }
        let pair = try SSHKeyPair.generate(comment: "keel \(name)")
        values["\(name)_private"] = Data(pair.privateKey.reveal().utf8).base64EncodedString()
        values["\(name)_public"] = pair.publicKey
        dirty = true
        return pair
    }

    /// Forgets the secrets this run generated: the file keeps only what it held before, and goes only if this
    /// run created it.
    public func discardGenerated() throws {
        lock.lock()
        values = values.filter { stored.contains($0.key) }
        let remove = !existed
        dirty = existed
        lock.unlock()
        if remove {
            guard unlink(path) == 0 || errno == ENOENT else { throw ResourceError("cannot remove \(path)") }
        } else {
            try save()
        }
    }

    /// Writes new secrets to the file, replaced whole (``PrivateFile``).
    public func save() throws {
        lock.lock()
        defer { lock.unlock() }
        guard dirty else { return }
        let text =
            "# Generated by keel deploy: passwords the inventory leaves empty. Keep this file private.\n"
            + values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\n" }.joined()
        do {
            try PrivateFile.replace(path, with: Array(text.utf8))
        } catch {
            throw ResourceError(error.description)
        }
        dirty = false
    }
}
