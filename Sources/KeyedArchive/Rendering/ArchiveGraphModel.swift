import PropertyList

/// An archive's object graph as `dump` walks it — depth-first from `$top`, each object in full
/// where first reached, later references and references back into an open object as markers —
/// kept as a flat table of nodes, for `keyedarchive graph` (the HTML page and DOT) and the diff
/// page. Every text in it is already the dump's text: values rendered by ``DumpSink``, keys and
/// class names as the dump prints them (quoted and escaped when they could be misread), so
/// control, separator and bidirectional characters are `\uXXXX` here as they are in the dump.
///
/// Bounded: at most `maximumNodes` nodes and about `maximumTextBytes` bytes of text are kept
/// (a value's text is cut at ``maximumValueText`` bytes); past either the walk stops and
/// ``truncated`` says so.
package struct ArchiveGraphModel: Sendable {
    package enum Kind: Int, Sendable {
        /// An instance shown as its fields.
        case object = 0
        /// An array, set or dictionary (a Foundation collection shown as one, or a plain one).
        case container = 1
        /// A leaf value (or a Foundation value shown by its text).
        case value = 2
        /// A reference to an object shown elsewhere (`-> #N` in the dump).
        case reference = 3
    }

    package struct Node: Sendable {
        /// The enclosing node, -1 for a `$top` entry.
        package var parent: Int
        package var depth: Int
        package var kind: Kind
        /// The label as the dump prints it (`name`, `"odd key"`, `[3]`), empty for none.
        package var label: String
        /// The key-path step this node is (nil for none): keys unescaped as ``ArchiveKeyPath`` has them.
        package var component: ArchiveKeyPath.Component?
        /// Its UID in `$objects` (for a reference, the target's), or -1 for an inline value.
        package var uid: Int
        /// The UID of its class descriptor, or -1.
        package var classUID: Int
        /// An object's class, a container's kind (`[]`, `set []`, `{}`, or its class), a
        /// value's text, a reference's summary — as the dump prints them.
        package var text: String
        /// A reference back into an object still open above it (a cycle).
        package var isBackReference: Bool
        /// A note for an object shown as stored because it does not read as its value.
        package var note: String?
    }

    package struct ClassEntry: Sendable {
        package var uid: Int
        /// The class name as the dump prints it.
        package var name: String
        /// The `$classes` chain, `A < B < NSObject`, as the dump prints it.
        package var chain: String
        /// How many objects of `$objects` are of this class.
        package var count: Int
    }

    package var archiver: String
    package var version: String
    package var objectCount: Int
    package private(set) var nodes: [Node] = []
    package private(set) var classes: [ClassEntry] = []
    package private(set) var truncated = false
    package let maximumNodes: Int

    /// The default cap on nodes kept: far more than a person reads, and a page that still opens at once.
    package static let defaultMaximumNodes = 500_000
    /// The most bytes of text all nodes together keep.
    package static let maximumTextBytes = 64 << 20
    /// The most bytes of one value's text; a longer one ends with `… (N more bytes)`.
    package static let maximumValueText = 2_048

    /// Walks `graph` as `dump` does (`rendering.foundationValues` shows Foundation's values as
    /// values, as `dump` does by default).
    package init(_ graph: ArchiveGraph, rendering: ArchiveRenderingOptions = .readable, options: ArchiveReadingOptions = .default,
                 maximumNodes: Int = ArchiveGraphModel.defaultMaximumNodes) {
        archiver = graph.archiver.excerptForMessage(256)
        version = graph.version.description
        objectCount = graph.objects.count
        self.maximumNodes = max(1, maximumNodes)
        var counts = [Int](repeating: 0, count: graph.objects.count)
        for object in graph.objects {
            if case .instance(let instance) = object, instance.classUID.value < UInt64(counts.count) {
                counts[Int(instance.classUID.value)] &+= 1
            }
        }
        for (index, object) in graph.objects.enumerated() {
            guard case .classDescriptor(let descriptor) = object else { continue }
            var chain = RenderBuffer()
            let classes = descriptor.classes.isEmpty ? [descriptor.name] : descriptor.classes
            for (position, name) in classes.prefix(64).enumerated() {
                if position > 0 { chain.append(" < ") }
                DumpSink.appendName(Self.cut(name), to: &chain)
            }
            if classes.count > 64 { chain.append(" < … (\(classes.count - 64) more)") }
            self.classes.append(ClassEntry(uid: index, name: Self.nameText(descriptor.name), chain: String(decoding: chain.bytes, as: UTF8.self),
                                           count: counts[index]))
        }
        var sink = ModelSink(objectCount: graph.objects.count, maximumNodes: self.maximumNodes)
        let interpreter = rendering.foundationValues ? ArchiveFoundationInterpreter(graph: graph, options: options) : nil
        // Every step yields at most one node; the end markers are steps too.
        let (steps, overflow) = self.maximumNodes.multipliedReportingOverflow(by: 3)
        let budget = min(options.maximumExpansionCount, overflow ? .max : steps)
        let finished = ArchiveGraphWalker(graph: graph, interpreter: interpreter).walk(into: &sink, budget: budget)
        nodes = sink.nodes
        truncated = sink.truncated || !finished
    }

    /// A class name or key as the dump prints it (bare, or quoted and escaped), cut to 512
    /// Unicode scalars.
    static func nameText(_ name: String) -> String {
        var buffer = RenderBuffer()
        DumpSink.appendName(cut(name), to: &buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    /// `name` cut to 512 Unicode scalars, ending in `…` when cut (by scalars: one `Character`
    /// can hold any number of combining marks).
    static func cut(_ name: String) -> String {
        var scalars = name.unicodeScalars.prefix(512 + 1)
        guard scalars.count > 512 else { return name }
        scalars = scalars.prefix(512)
        return String(String.UnicodeScalarView(scalars)) + "…"
    }

    /// Each node's children, in order.
    package func children() -> [[Int]] {
        var children = [[Int]](repeating: [], count: nodes.count)
        for (index, node) in nodes.enumerated() where node.parent >= 0 {
            children[node.parent].append(index)
        }
        return children
    }

    /// The `$top` entries' nodes.
    package var roots: [Int] {
        nodes.indices.filter { nodes[$0].parent < 0 }
    }

    /// For each UID, the node where its object is shown in full (the target of references to it).
    package func firstOccurrences() -> [Int: Int] {
        var first: [Int: Int] = [:]
        for (index, node) in nodes.enumerated() where node.uid >= 0 && node.kind != .reference {
            if first[node.uid] == nil { first[node.uid] = index }
        }
        return first
    }

    /// The key path of a node, as the rest of the package names places.
    package func keyPath(of node: Int) -> ArchiveKeyPath {
        var components: [ArchiveKeyPath.Component] = []
        var current = node
        while current >= 0, current < nodes.count {
            if let component = nodes[current].component { components.append(component) }
            current = nodes[current].parent
        }
        return ArchiveKeyPath(components.reversed())
    }

    /// The node at `path`, following a reference to where its object is shown in full; with
    /// `deepest`, the deepest node on the way when the whole path does not lead to one (a diff's
    /// path may go into a value's stored fields). Nil when not even the top key is there.
    package func node(at path: ArchiveKeyPath, deepest: Bool = false, children: [[Int]]? = nil, first: [Int: Int]? = nil) -> Int? {
        let children = children ?? self.children()
        let first = first ?? firstOccurrences()
        var candidates = roots
        var found: Int?
        for component in path.components {
            guard let next = candidates.first(where: { nodes[$0].component == component }) else {
                return deepest ? found : nil
            }
            var target = next
            if nodes[target].kind == .reference, let shown = first[nodes[target].uid] { target = shown }
            found = target
            candidates = children[target]
        }
        return found
    }

    /// Parses a key path as the package prints one: keys separated by `.`, indexes as `[N]`
    /// (`root.airplanes[1].owner`). Nil when it is not one.
    package static func parseKeyPath(_ text: String) -> ArchiveKeyPath? {
        var components: [ArchiveKeyPath.Component] = []
        var key = ""
        var characters = text[...]
        var afterIndex = false
        while let character = characters.first {
            characters = characters.dropFirst()
            switch character {
            case ".":
                if key.isEmpty && !afterIndex { return nil }
                if !key.isEmpty { components.append(.key(key)); key = "" }
                afterIndex = false
            case "[":
                if !key.isEmpty { components.append(.key(key)); key = "" }
                guard let close = characters.firstIndex(of: "]"), let index = Int(characters[..<close]), index >= 0 else { return nil }
                components.append(.index(index))
                characters = characters[characters.index(after: close)...]
                afterIndex = true
            default:
                if afterIndex { return nil }
                key.append(character)
            }
        }
        if !key.isEmpty { components.append(.key(key)) }
        guard case .key? = components.first else { return nil }
        return ArchiveKeyPath(components)
    }
}

/// Builds the model's nodes from the walker's events.
private struct ModelSink: ArchiveWalkSink {
    var nodes: [ArchiveGraphModel.Node] = []
    var truncated = false
    let maximumNodes: Int
    var textBytes = 0
    /// The nodes still open (an object or container whose end has not come), -1 for one not kept.
    var openNodes: [Int] = []
    /// How many times each UID is open on `openNodes` (a reference to one of them is a back-reference).
    var openCount: [UInt32]
    /// Whether each open node is an instance (its field keys are unescaped in key paths).
    var openIsInstance: [Bool] = []

    init(objectCount: Int, maximumNodes: Int) {
        openCount = [UInt32](repeating: 0, count: objectCount)
        self.maximumNodes = maximumNodes
    }

    mutating func stepFinished() {}

    private func component(_ label: ArchiveWalkLabel) -> (String, ArchiveKeyPath.Component?) {
        switch label {
        case .none: return ("", nil)
        case .index(let index): return ("[\(index)]", .index(index))
        case .key(let key):
            let inInstance = openIsInstance.last ?? false
            let user = inInstance ? (ArchiveKeys.unescape(key) ?? key) : key
            return (ArchiveGraphModel.nameText(key), .key(user))
        }
    }

    /// Adds a node (when there is room); returns its index or -1.
    private mutating func add(_ label: ArchiveWalkLabel, kind: ArchiveGraphModel.Kind, uid: Int?, classUID: Int = -1, text: String,
                              back: Bool = false, note: String? = nil) -> Int {
        guard !truncated else { return -1 }
        let parent = openNodes.last ?? -1
        // A child of a node not kept is not kept either (only after truncation, which stops all).
        let (labelText, component) = self.component(label)
        let cost = labelText.utf8.count &+ text.utf8.count &+ 32
        guard nodes.count < maximumNodes, textBytes &+ cost <= ArchiveGraphModel.maximumTextBytes else {
            truncated = true
            return -1
        }
        textBytes &+= cost
        nodes.append(ArchiveGraphModel.Node(parent: parent, depth: openNodes.count, kind: kind, label: labelText, component: component,
                                            uid: uid ?? -1, classUID: classUID, text: text, isBackReference: back, note: note))
        return nodes.count - 1
    }

    private mutating func open(_ node: Int, uid: Int?, isInstance: Bool) {
        openNodes.append(node)
        openIsInstance.append(isInstance)
        if let uid, uid >= 0, uid < openCount.count { openCount[uid] &+= 1 }
        openUIDs.append(uid ?? -1)
    }

    var openUIDs: [Int] = []

    private mutating func close() {
        openNodes.removeLast()
        openIsInstance.removeLast()
        if let uid = openUIDs.popLast(), uid >= 0, uid < openCount.count { openCount[uid] &-= 1 }
    }

    private static func cut(_ buffer: RenderBuffer) -> String {
        let limit = ArchiveGraphModel.maximumValueText
        guard buffer.bytes.count > limit else { return String(decoding: buffer.bytes, as: UTF8.self) }
        // Cut at a character boundary (a UTF-8 continuation byte is 10xxxxxx).
        var end = limit
        while end > 0, buffer.bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: buffer.bytes[..<end], as: UTF8.self) + "… (\(buffer.bytes.count - end) more bytes)"
    }

    mutating func beginInstance(_ label: ArchiveWalkLabel, uid: Int, className: String, classUID: Int, depth: Int, isEmpty: Bool) {
        let node = add(label, kind: .object, uid: uid, classUID: classUID, text: ArchiveGraphModel.nameText(className))
        open(node, uid: uid, isInstance: true)
    }

    mutating func beginNotedInstance(_ label: ArchiveWalkLabel, uid: Int, className: String, classUID: Int, depth: Int, isEmpty: Bool, note: String) {
        let node = add(label, kind: .object, uid: uid, classUID: classUID, text: ArchiveGraphModel.nameText(className),
                       note: "shown as stored: \(note.excerptForMessage(512))")
        open(node, uid: uid, isInstance: true)
    }

    mutating func endInstance(depth: Int, isEmpty: Bool) { close() }

    mutating func beginContainer(_ label: ArchiveWalkLabel, kind: ArchiveWalkContainer, uid: Int?, depth: Int, isEmpty: Bool) {
        let text: String
        switch kind {
        case .array: text = "[]"
        case .set: text = "set []"
        case .dictionary: text = "{}"
        }
        let node = add(label, kind: .container, uid: uid, text: text)
        open(node, uid: uid, isInstance: false)
    }

    mutating func beginFoundationContainer(_ label: ArchiveWalkLabel, kind: ArchiveWalkContainer, uid: Int, className: String, depth: Int, isEmpty: Bool) {
        let node = add(label, kind: .container, uid: uid, text: ArchiveGraphModel.nameText(className))
        open(node, uid: uid, isInstance: false)
    }

    mutating func endContainer(kind: ArchiveWalkContainer, depth: Int, isEmpty: Bool) { close() }

    mutating func scalar(_ label: ArchiveWalkLabel, _ value: ArchiveWalkScalar, uid: Int?, depth: Int) {
        var buffer = RenderBuffer()
        DumpSink.appendScalar(value, to: &buffer)
        _ = add(label, kind: .value, uid: uid, text: Self.cut(buffer))
    }

    mutating func foundationText(_ label: ArchiveWalkLabel, kind: String, text: String, uid: Int?, depth: Int) {
        var buffer = RenderBuffer()
        DumpSink.appendFoundationText(kind: kind, text: text, to: &buffer)
        _ = add(label, kind: .value, uid: uid, text: Self.cut(buffer))
    }

    mutating func reference(_ label: ArchiveWalkLabel, uid: Int, summary: String, depth: Int) {
        let back = uid >= 0 && uid < openCount.count && openCount[uid] > 0
        _ = add(label, kind: .reference, uid: uid, text: ArchiveGraphModel.nameText(summary), back: back)
    }
}
