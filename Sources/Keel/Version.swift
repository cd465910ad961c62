/// Keel's release version, as `keel --version` prints it.
public let keelVersion = "0.1.0"
