import Keel

/// The cluster playbooks Keel ships. Flows arrive here as the engine grows.
public enum Playbooks {
    public static let names: [String] = []
}
