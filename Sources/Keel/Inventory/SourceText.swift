import Foundation

/// An inventory or variables file's bytes as text, as Ansible reads them: UTF-8, a byte-order mark dropped.
enum SourceText {
    /// The text of `data`, read from `file`.
    /// - Throws: ``InventoryError`` naming the line of the first byte that is not UTF-8 (replacing it would
    ///   silently change a name or a password).
    static func decode(_ data: Data, file: String) throws(InventoryError) -> String {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        parsing: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error, .emptyInput: break parsing
            }
        }
        let line = 1 + bytes.prefix(offset).count(where: { $0 == UInt8(ascii: "\n") })
        throw InventoryError(
            "byte \(data.count - bytes.count + offset + 1) is not UTF-8 text",
            at: SourceLocation(file: file, line: line),
            hint: "save the file as UTF-8")
    }
}
