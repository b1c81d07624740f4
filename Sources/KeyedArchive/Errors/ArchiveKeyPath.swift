import PropertyList

/// Where a value sits in an archive's object graph, from a top-level key: `root.airplanes[3].registrationNumber`.
///
/// Keys are the *user* keys a model encodes (unescaped: an archived `$$name` shows as `$name`),
/// so a path names what the model's author wrote rather than the file's spelling.
public struct ArchiveKeyPath: Hashable, Sendable, CustomStringConvertible {
    /// One step of a path: a key into an object or dictionary, or an index into an array.
    public enum Component: Hashable, Sendable {
        /// A key, as the model encodes it (unescaped).
        case key(String)
        /// A position in an array, set or ordered set.
        case index(Int)
    }

    /// The steps from the top of the archive, the top-level key first.
    public var components: [Component]

    /// A path of `components` (empty by default).
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The empty path: the top of the archive, or no place at all.
    public static let empty = ArchiveKeyPath()

    /// The path one step further, to `component`.
    public func appending(_ component: Component) -> ArchiveKeyPath {
        var copy = self
        copy.components.append(component)
        return copy
    }

    /// The path one key further.
    public func appending(key: String) -> ArchiveKeyPath { appending(.key(key)) }
    /// The path one index further.
    public func appending(index: Int) -> ArchiveKeyPath { appending(.index(index)) }

    /// The path as one line: keys come from the archive, so control characters, line
    /// separators and bidirectional controls in them are escaped (`root\nx`, `a\u202eb`),
    /// each cut to 128 characters. A path of more than 40 components shows its first 8 and
    /// last 24 around a count of those left out (`root.next.….(19968 more).….next.leaf`): an
    /// archive 20,000 objects deep must not make every message about it megabytes long.
    /// ``components`` keeps the whole path.
    public var description: String {
        var text = ""
        func add(_ component: Component) {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key.excerptForMessage(128)
            case .index(let index):
                text += "[\(index)]"
            }
        }
        guard components.count > Self.describedComponentLimit else {
            for component in components { add(component) }
            return text
        }
        for component in components.prefix(Self.describedLeadingComponents) { add(component) }
        text += ".….(\(components.count - Self.describedLeadingComponents - Self.describedTrailingComponents) more).…"
        for component in components.suffix(Self.describedTrailingComponents) { add(component) }
        return text
    }

    static let describedComponentLimit = 40
    static let describedLeadingComponents = 8
    static let describedTrailingComponents = 24
}
