/// The core values every playbook and command uses (`Secret`, `shellQuote`, `Become`, `ExecResult`, `Transport`)
/// come with `import Keel`; the SSH transport stays behind the engine.
@_exported import KeelCore
