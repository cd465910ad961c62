import Keel

/// The cluster's CA, this host's certificate and its key where one service reads them (see ``TLSFiles``). A
/// renewed certificate reaches the service by `handlers`.
struct TLSFilesRole: Role {
    let files: TLSFiles
    let authority: String
    let issued: ClusterTLS.Issued
    let handlers: [Handler]

    var steps: [Step] {
        Directory(files.directory, mode: 0o750, owner: "root", group: files.account)
        File(files.authority, content: authority).onChange(handlers)
        File(files.certificate, content: issued.certificate).onChange(handlers)
        File(files.key, contents: .secret(issued.key), mode: 0o600, owner: files.account, group: files.account)
            .onChange(handlers)
    }
}
