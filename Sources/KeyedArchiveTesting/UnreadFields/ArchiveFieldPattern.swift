import KeyedArchive
import PropertyList

/// A pattern naming fields a model leaves unread (or drops) on purpose — what `ignoring:`
/// takes. Three forms:
///
/// - a bare key, `model`: that key in any object, at any depth (`*` alone: every field);
/// - `Class.key`, `DChoice.model`: that key in objects whose archived `$classes` chain holds
///   `Class` — the class or a superclass. Class names and keys may hold dots themselves
///   (`MyApp.Choice.model`, `NSView.NS.frame`): the pattern matches when it *is* one of the
///   chain's names, a dot and the key. `Class.*` is every field of the class, `*.key` the
///   same as a bare key;
/// - a key path, `root.rootChoice.choices[*].model`: one step per component, as paths are
///   printed, where `*` stands for any one key and `[*]` for any one index or dictionary key.
///
/// A pattern matches a field when any of these readings does.
public struct ArchiveFieldPattern: Hashable, Sendable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String

    /// One step of a key-path pattern.
    enum Step: Hashable, Sendable {
        case key(String)
        case anyKey
        case index(Int)
        case anyElement
    }

    /// The key-path reading: nil when the text does not read as a key path with more than
    /// one step.
    private let steps: [Step]?

    /// Parses `text`.
    /// - Throws: ``ArchiveFixtureError`` naming what is wrong: an empty pattern, or a key path
    ///   whose brackets are wrong (`choices[x]`, `choices[0`, `a.[0]`, `a[0]b`).
    public init(_ text: String) throws(ArchiveFixtureError) {
        self.text = text
        guard !text.isEmpty else {
            throw ArchiveFixtureError("ignoring: a pattern is empty; patterns are a key (model), Class.key (DChoice.model) or a key path with * and [*] (root.choices[*].model)")
        }
        do {
            let steps = try Self.steps(of: text)
            self.steps = steps.count > 1 ? steps : nil
        } catch {
            // Only brackets make a text a key path for certain; a dotted text that is not one
            // (`a..b`) is still a key or Class.key.
            guard text.contains("[") || text.contains("]") else {
                steps = nil
                return
            }
            throw error
        }
    }

    /// The key-path steps `text` stands for.
    private static func steps(of text: String) throws(ArchiveFixtureError) -> [Step] {
        func invalid(_ why: String) -> ArchiveFixtureError {
            ArchiveFixtureError("ignoring: the pattern \(ArchiveSchema.swiftString(text)) \(why); patterns are a key (model), Class.key (DChoice.model) or a key path with * and [*] (root.choices[*].model)")
        }
        let characters = Array(text)
        var steps: [Step] = []
        var position = 0
        // After a key or a bracket only `.`, `[` or the end may come.
        var needsSeparator = false
        while position < characters.count {
            switch characters[position] {
            case ".":
                guard needsSeparator else { throw invalid(position == 0 ? "starts with a dot" : "has an empty component") }
                needsSeparator = false
                position += 1
                guard position < characters.count else { throw invalid("ends with a dot") }
            case "[":
                guard needsSeparator || steps.isEmpty else { throw invalid("has an empty component") }
                guard let close = characters[position...].firstIndex(of: "]") else { throw invalid("has a [ that is not closed") }
                let inside = String(characters[(position + 1)..<close])
                if inside == "*" {
                    steps.append(.anyElement)
                } else if !inside.isEmpty, inside.allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int(inside) {
                    steps.append(.index(index))
                } else {
                    throw invalid("has [\(inside)]: a bracket holds an index or *")
                }
                position = close + 1
                needsSeparator = true
            case "]":
                throw invalid("has a ] that was not opened")
            default:
                guard !needsSeparator else { throw invalid("has a key right after ]: write a dot before it") }
                var key = ""
                while position < characters.count, !".[]".contains(characters[position]) {
                    key.append(characters[position])
                    position += 1
                }
                steps.append(key == "*" ? .anyKey : .key(key))
                needsSeparator = true
            }
        }
        return steps
    }

    /// Whether the pattern names `field`.
    public func matches(_ field: ArchiveUnreadField) -> Bool {
        matches(keyPath: field.keyPath, classChain: field.classChain)
    }

    /// Whether the pattern names the field at `keyPath` (its last component the field's key)
    /// of an object whose archived class chain is `classChain`.
    /// - Parameters:
    ///   - keyPath: the field's key path.
    ///   - classChain: the `$classes` of the object holding the field, the class first (empty
    ///     when unknown).
    public func matches(keyPath: ArchiveKeyPath, classChain: [String]) -> Bool {
        if case .key(let key)? = keyPath.components.last {
            if text == key || text == "*" || text == "*." + key { return true }
            for className in classChain where text == className + "." + key || text == className + ".*" {
                return true
            }
        }
        guard let steps, steps.count == keyPath.components.count else { return false }
        for (step, component) in zip(steps, keyPath.components) {
            switch (step, component) {
            case (.key(let wanted), .key(let key)) where wanted == key: continue
            case (.anyKey, .key): continue
            case (.index(let wanted), .index(let index)) where wanted == index: continue
            case (.anyElement, _): continue
            default: return false
            }
        }
        return true
    }

    /// ``text``.
    public var description: String { text }

    /// The patterns `texts` stand for, in the order given, each once.
    /// - Throws: ``ArchiveFixtureError`` for the first pattern that does not parse.
    static func parse(_ texts: [String]) throws(ArchiveFixtureError) -> [ArchiveFieldPattern] {
        var patterns: [ArchiveFieldPattern] = []
        var seen: Set<String> = []
        for text in texts where seen.insert(text).inserted { patterns.append(try ArchiveFieldPattern(text)) }
        return patterns
    }
}
