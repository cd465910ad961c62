import Keel

/// keepalived picks up a configuration written since it last (re)loaded, without the VIP ever on two hosts.
///
/// A backup cannot simply reload: one that reloads into unicast before its VIP holder (still multicasting, or not
/// yet listing a new peer) would not hear the holder and would claim the VIP too. So the backups stop first
/// (``Stage/backups``; a stopped backup claims nothing), then the holder reloads (``Stage/holder``: it keeps the
/// VIP and sends its adverts to every peer of the new configuration), and the balancers start again one by one
/// afterwards, each hearing the holder as it starts.
struct KeepalivedReload: Resource {
    enum Stage {
        /// Stop a balancer with a newer configuration that does not hold the VIP.
        case backups
        /// Reload the balancer holding the VIP, when its configuration is newer.
        case holder
    }

    let vip: VIP
    let stage: Stage

    /// Touched when Keel reloads keepalived: a configuration older than this, or than keepalived's start, is loaded.
    static let loadedMark = "/run/keel/keepalived-loaded"

    var description: String {
        stage == .backups ? "keepalived backups stopped for a new configuration" : "keepalived VIP holder reloaded"
    }

    /// `active|inactive`, `new|loaded` and `holds|not`.
    var probe: String {
        "systemctl is-active keepalived || true; "
            + "conf=$(stat -c %Y \(KeepalivedRole.configuration) 2>/dev/null || echo 0); "
            + "started=$(date -d \"$(systemctl show -p ActiveEnterTimestamp --value keepalived)\" +%s 2>/dev/null || echo 0); "
            + "loaded=$(stat -c %Y \(Self.loadedMark) 2>/dev/null || echo 0); "
            + "if [ \"$conf\" -gt \"$started\" ] && [ \"$conf\" -gt \"$loaded\" ]; then echo new; else echo loaded; fi; "
            + "if ip -4 -br addr | grep -qF ' \(vip.address)/'; then echo holds; else echo not; fi"
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        let state = output.text.split(separator: "\n").map(String.init)
        guard state.count == 3 else {
            throw ResourceError("keepalived's state on \(context.name) is unreadable: \(output.text.prefix(200))")
        }
        guard state[0] == "active", state[1] == "new" else { return [] }
        switch (stage, state[2] == "holds") {
        case (.backups, false):
            return [
                Change(
                    "stop keepalived (a backup) until the VIP holder has the new configuration",
                    .shell("systemctl stop keepalived"))
            ]
        case (.holder, true):
            return [
                Change(
                    "reload keepalived on the VIP holder",
                    .shell("systemctl reload keepalived && mkdir -p /run/keel && touch \(Self.loadedMark)"))
            ]
        default:
            return []
        }
    }
}
