import Foundation

/// Keel's folders on this machine: `$XDG_CACHE_HOME/keel`, else `~/.cache/keel`.
public enum CacheFolder {
    /// The folder `name` under Keel's cache; nil without a home.
    public static func path(_ name: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        guard
            let cache = environment["XDG_CACHE_HOME"].flatMap({ $0.hasPrefix("/") ? $0 : nil })
                ?? environment["HOME"].flatMap({ $0.hasPrefix("/") ? $0 + "/.cache" : nil })
        else { return nil }
        return cache + "/keel/" + name
    }
}
