import Keel

/// The running cluster's settings a new cluster must share for pg_upgrade — its encoding, locale, data checksums
/// and install user (the role with oid 10) — as shell variables of these names.
enum UpgradeSettings {
    static let names = ["encoding", "collate", "ctype", "checksums", "install_user"]

    /// Reads them from `model`'s running server into the variables.
    static func read(_ model: ClusterModel) -> ShellCommand {
        let show = { (name: String) in model.postgres.run("SHOW \(name)") }
        return "encoding=$(\(show("server_encoding"))) && collate=$(\(show("lc_collate"))) && "
            + "ctype=$(\(show("lc_ctype"))) && checksums=$(\(show("data_checksums"))) && "
            + "install_user=$(\(model.postgres.run("SELECT rolname FROM pg_authid WHERE oid = 10")))"
    }

    /// initdb of the programs in `bin` into `directory` (a shell word), with the settings of the variables.
    static func initdb(_ bin: String, into directory: ShellCommand) -> ShellCommand {
        "runuser -u postgres -- \(bin + "/initdb") -D \(directory) --encoding=\"$encoding\" "
            + "--lc-collate=\"$collate\" --lc-ctype=\"$ctype\" --username=\"$install_user\" "
            + "$([ \"$checksums\" = on ] && echo --data-checksums) >/dev/null"
    }
}
