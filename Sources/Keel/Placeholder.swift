public enum KeelPlaceholder {}
