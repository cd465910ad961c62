import Foundation
import KeelCore
import Synchronization

/// The sessions a ``ConnectionKeeper`` holds, by the id it gave the client that leased each.
///
/// A session is shared by every client that asks for the same host with the same configuration, checked with a
/// trivial command before it is handed out again, and closed once nobody has held or used it for a while.
actor KeptSessions {
    private struct Entry {
        let key: String
        let opening: Task<any Transport, any Error>
        var leases = 0
        var lastUsed = ContinuousClock.now
    }

    private let connect: ConnectionKeeper.Connect
    private var entries: [String: Entry] = [:]
    private var idByKey: [String: String] = [:]

    init(connect: @escaping ConnectionKeeper.Connect) { self.connect = connect }

    var isEmpty: Bool { entries.isEmpty }

    /// A session for `request`: the one kept, when known_hosts still holds the key it verified and it still
    /// answers, or a new one (verified afresh: a key removed or replaced since is not trusted through a kept one).
    /// - Throws: the error that opening a new session met.
    func lease(_ request: LeaseRequest) async throws -> LeaseGrant {
        try request.configuration.refuseRelativePaths()
        let key = request.key
        if let id = idByKey[key], let entry = entries[id] {
            entries[id]?.leases += 1
            if let transport = try? await entry.opening.value, Self.stillTrusted(transport),
                await Self.answers(transport)
            {
                entries[id]?.lastUsed = .now
                return LeaseGrant(session: id, kept: true)
            }
            await drop(id, opening: entry.opening)
        }
        let id = randomToken()
        let configuration = request.configuration.configuration
        let opening = Task { [connect] in try await connect(configuration) }
        entries[id] = Entry(key: key, opening: opening, leases: 1)
        idByKey[key] = id
        do {
            _ = try await opening.value
            return LeaseGrant(session: id, kept: false)
        } catch {
            await drop(id, opening: opening)
            throw error
        }
    }

    /// Hands a lease back: the session stays for the next client.
    func release(_ id: String) {
        entries[id]?.leases -= 1
        entries[id]?.lastUsed = .now
    }

    /// The open session `id`, or nil when it is gone.
    func transport(_ id: String) async -> (any Transport)? {
        guard let opening = entries[id]?.opening else { return nil }
        entries[id]?.lastUsed = .now
        return try? await opening.value
    }

    /// Closes the sessions nobody holds that have not been used for `persist`.
    func closeIdle(after persist: Duration) async {
        let idle = entries.filter { $0.value.leases <= 0 && ContinuousClock.now - $0.value.lastUsed >= persist }
        for (id, entry) in idle { await drop(id, opening: entry.opening) }
    }

    /// Closes every session.
    func closeAll() async {
        for (id, entry) in entries { await drop(id, opening: entry.opening) }
    }

    private func drop(_ id: String, opening: Task<any Transport, any Error>) async {
        guard let entry = entries[id], entry.opening == opening else { return }
        entries[id] = nil
        if idByKey[entry.key] == id { idByKey[entry.key] = nil }
        await (try? opening.value)?.close()
    }

    /// Whether `transport`'s host keys are still in known_hosts (an SSH connection's; a fake's always are).
    private static func stillTrusted(_ transport: any Transport) -> Bool {
        (transport as? SSHConnection)?.hostKeysStillKnown() ?? true
    }

    /// Whether `transport` still runs a command within a few seconds: a host restarted, or a connection cut while
    /// it was kept, fails here rather than in the client's first command. A check that does not answer in time is
    /// not waited for (the session is closed, which ends it).
    private static func answers(_ transport: any Transport) async -> Bool {
        await withCheckedContinuation { continuation in
            let pending = Mutex<CheckedContinuation<Bool, Never>?>(continuation)
            let answer = { @Sendable (answered: Bool) in pending.withLock { $0.take() }?.resume(returning: answered) }
            Task { answer((try? await transport.run("exit 0", timeout: .seconds(3)).succeeded) ?? false) }
            Task {
                try? await Task.sleep(for: .seconds(3))
                answer(false)
            }
        }
    }
}
