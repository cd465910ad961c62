/// Why a Jinja template in a variable cannot be evaluated.
struct JinjaError: Error, Equatable {
    var message: String
    /// The name that is not set, when that is why (the `default` filter then gives its value instead).
    var undefinedName: String?

    init(_ message: String) { self.message = message }

    static func undefined(_ name: String) -> JinjaError {
        var error = JinjaError(
            name.hasPrefix("ansible_")
                ? "'\(name)' is undefined: not a fact Keel gathers, or read where facts are not gathered"
                : "'\(name)' is undefined")
        error.undefinedName = name
        return error
    }
}
