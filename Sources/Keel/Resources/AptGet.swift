/// How Keel calls `apt-get`, in one place: it asks nothing, waits up to 300 s for another run's dpkg lock, and an
/// install keeps a configuration file already in place (written before its package, so that the service never
/// starts on the package's defaults), where dpkg would otherwise stop at its question.
public enum AptGet {
    /// Installs `arguments` (packages, `name=version`, a `.deb` file, options such as `--only-upgrade`), within 900 s.
    public static func install(_ arguments: String) -> ShellCommand {
        .raw(
            "\(unattended) timeout 900 apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 "
                + "-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \(arguments)")
    }

    /// Refreshes apt's lists within `seconds`, waiting up to 300 s for another run's lock.
    public static func update(within seconds: Int) -> ShellCommand {
        .raw("timeout \(seconds) apt-get update -q -o DPkg::Lock::Timeout=300 \(network)")
    }

    /// A stalled mirror or proxy fails a fetch after 30 s, and each fetch is tried three times.
    public static let network = "-o Acquire::http::Timeout=30 -o Acquire::Retries=3"

    /// Removes the packages `list` names, with their configuration files when `purging`.
    public static func remove(_ list: String, purging: Bool = false) -> ShellCommand {
        .raw("\(unattended) apt-get \(purging ? "purge" : "remove") -y -q -o DPkg::Lock::Timeout=300 \(list)")
    }

    private static let unattended = "DEBIAN_FRONTEND=noninteractive"
}
