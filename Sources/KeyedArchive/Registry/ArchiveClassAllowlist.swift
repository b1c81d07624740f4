import PropertyList

/// An allowlist of archived class names, checked against a whole archive without decoding it:
/// what `keyedarchive validate FILE --allow Pilot,Airplane,NSArray` runs, and what
/// ``ArchiveRegistry/checkClassNames(of:maximumReported:)`` runs with a registry's names. Not
/// public: a program has a registry, and asks it.
///
/// Every object reachable from `$top` is checked: an object with a class is admitted only when
/// its exact `$classname` is listed (its `$classes` chain is reported, never used to admit it);
/// a plain string, number, data or date is admitted by the same ``ArchivePrimitivePolicy`` the
/// typed decoder uses; anything else no unarchiver could turn into an object (a bare array or
/// dictionary without `$class`, a reference to a class dictionary) is refused, and so is an
/// object (or `$top`) that stores a key twice, which typed decoding refuses too. Objects nothing
/// reaches are not checked, since no decoder would ever create them.
package struct ArchiveClassAllowlist: Hashable, Sendable {
    private let names: Set<ArchiveExactKey>
    /// The primitive policy for plain values.
    package var primitives: ArchivePrimitivePolicy

    /// - Parameters:
    ///   - classNames: archived class names to admit, compared exactly (by Unicode scalars).
    ///   - primitives: which plain values are admitted (default: all, as the registry).
    package init(classNames: some Sequence<String>, primitives: ArchivePrimitivePolicy = .all) {
        names = Set(classNames.map(ArchiveExactKey.init))
        self.primitives = primitives
    }

    /// An allowlist of names already keyed exactly (a registry's).
    init(exactNames: Set<ArchiveExactKey>, primitives: ArchivePrimitivePolicy) {
        names = exactNames
        self.primitives = primitives
    }

    /// Whether an archived class name is listed.
    package func admits(className: String) -> Bool {
        names.contains(ArchiveExactKey(className))
    }

    /// The result of checking one archive.
    package typealias Report = ArchiveClassNameReport

    /// Checks every object reachable from `$top`. Linear in the archive's size: each object is
    /// checked once, however often it is referenced, and nothing recurses.
    /// - Parameters:
    ///   - graph: the validated archive to check.
    ///   - maximumReported: most refusals kept in the report (all are counted).
    package func check(_ graph: ArchiveGraph, maximumReported: Int = 1000) -> Report {
        var walk = PathWalk(graph: graph)
        var refusals: [ArchiveError] = []
        var refusalCount = 0
        var checked = 0
        var refusedNames: [String] = []
        var refusedNameSet: Set<ArchiveExactKey> = []

        // Autoclosure: the error (and its key path, as long as the archive is deep) is built
        // only for refusals that are kept, so that a million refusals stay linear.
        func refuse(_ error: @autoclosure () -> ArchiveError) {
            refusalCount += 1
            if refusals.count < maximumReported { refusals.append(error()) }
        }

        // A key stored twice means one thing to Apple's binary reader and another to its XML
        // reader: no allowlist can vouch for such an archive (Docs/Security.md).
        if let (key, occurrences) = graph.topFields.firstDuplicateKey() {
            refuse(ArchiveGraph.duplicateKeyError(storedKey: key, occurrences: occurrences, in: ArchiveKeyPath([]), uid: nil))
        }
        while let (uid, node) = walk.nextObject() {
            checked += 1
            let reference = PropertyListUID(UInt64(uid))
            switch graph.objects[uid] {
            case .null:
                break
            case .instance(let instance):
                guard let descriptor = graph.classDescriptor(of: reference) else { break }
                if !admits(className: descriptor.name) {
                    if refusedNameSet.insert(ArchiveExactKey(descriptor.name)).inserted { refusedNames.append(descriptor.name) }
                    refuse(ArchiveError(.classNotAllowed, "class \(descriptor.name.excerptForMessage(128)) is not in the allowlist", keyPath: walk.path(to: node),
                                        uid: reference, classChain: descriptor.classes, remedy: "--allow \(descriptor.name.excerptForMessage(128))"))
                }
                if let (storedKey, occurrences) = instance.storage.firstDuplicateKey() {
                    refuse(ArchiveGraph.duplicateKeyError(storedKey: storedKey, occurrences: occurrences, in: walk.path(to: node), uid: reference))
                }
                walk.pushFields(of: instance, from: node)
            case .string: checkPrimitive(.strings, "string", uid: uid, node: node, walk: walk, refuse: refuse)
            case .integer: checkPrimitive(.integers, "integer", uid: uid, node: node, walk: walk, refuse: refuse)
            case .real: checkPrimitive(.reals, "real", uid: uid, node: node, walk: walk, refuse: refuse)
            case .bool: checkPrimitive(.booleans, "boolean", uid: uid, node: node, walk: walk, refuse: refuse)
            case .data: checkPrimitive(.data, "data", uid: uid, node: node, walk: walk, refuse: refuse)
            case .date: checkPrimitive(.dates, "date", uid: uid, node: node, walk: walk, refuse: refuse)
            case .classDescriptor(let descriptor):
                refuse(ArchiveError(.invalidReference, "a reference to the class dictionary of \(descriptor.name.excerptForMessage(128)), which is not an object", keyPath: walk.path(to: node),
                                    uid: reference, classChain: descriptor.classes))
            case .other(let value):
                refuse(ArchiveError(.classNotAllowed, "a plain \(value.kindName) with no $class: no unarchiver can create it", keyPath: walk.path(to: node), uid: reference))
                walk.pushValue(value, from: node)
            }
        }
        return Report(refusals: refusals, refusalCount: refusalCount, checkedObjectCount: checked, refusedClassNames: refusedNames)
    }

    private func checkPrimitive(_ kind: ArchivePrimitivePolicy, _ name: String, uid: Int, node: Int, walk: PathWalk, refuse: (@autoclosure () -> ArchiveError) -> Void) {
        guard !primitives.contains(kind) else { return }
        let plural = ArchivePrimitivePolicy.names.first { $0.kind == kind }?.name ?? name
        refuse(ArchiveError(.classNotAllowed, "a plain \(name), and the primitive policy does not admit plain \(plural)", keyPath: walk.path(to: node),
                            uid: PropertyListUID(UInt64(uid)), remedy: "--primitives \(plural),…"))
    }
}

/// A depth-first walk from `$top` that visits each object once and remembers, for each, how
/// it was first reached — as a parent pointer, so that memory stays linear however deep the
/// archive nests (a 100 000-deep chain must not store 100 000 paths of 100 000 components).
private struct PathWalk {
    let graph: ArchiveGraph
    /// Path nodes: the parent node and the component leading here (parent -1: the top).
    private var parents: [Int] = []
    private var components: [ArchiveKeyPath.Component] = []
    private var seen: [Bool]
    /// Values still to look into, with the path node they sit at.
    private var pending: [(value: PropertyListValue, node: Int)] = []

    init(graph: ArchiveGraph) {
        self.graph = graph
        seen = [Bool](repeating: false, count: graph.objects.count)
        for entry in graph.top.reversed() {
            pending.append((entry.value, addNode(parent: -1, .key(entry.key))))
        }
    }

    private mutating func addNode(parent: Int, _ component: ArchiveKeyPath.Component) -> Int {
        parents.append(parent)
        components.append(component)
        return parents.count - 1
    }

    /// The next object not yet visited, with the path node of its first reference.
    mutating func nextObject() -> (uid: Int, node: Int)? {
        while let (value, node) = pending.popLast() {
            switch value {
            case .uid(let uid):
                // Validated graphs hold only in-range UIDs; anything else is skipped, not trusted.
                guard uid.value < UInt64(seen.count) else { continue }
                let index = Int(uid.value)
                if seen[index] { continue }
                seen[index] = true
                return (index, node)
            case .array(let elements), .set(let elements):
                for (position, element) in elements.enumerated().reversed() where isWorthVisiting(element) {
                    pending.append((element, addNode(parent: node, .index(position))))
                }
            case .dictionary(let dictionary):
                for entry in dictionary.entries.reversed() where isWorthVisiting(entry.value) {
                    pending.append((entry.value, addNode(parent: node, .key(entry.key))))
                }
            default:
                continue
            }
        }
        return nil
    }

    /// Queues an instance's fields. `NS.objects` elements take the instance's own path with an
    /// index (`root.airplanes[3]`, as typed decoding names them); other keys are unescaped.
    mutating func pushFields(of instance: ArchiveGraph.Instance, from node: Int) {
        for entry in instance.storage.entries.reversed() {
            guard isWorthVisiting(entry.value), !entry.key.isExactlyEqual(to: ArchiveKeys.classKey) else { continue }
            if entry.key.isExactlyEqual(to: "NS.objects"), case .array(let elements) = entry.value {
                for (position, element) in elements.enumerated().reversed() where isWorthVisiting(element) {
                    pending.append((element, addNode(parent: node, .index(position))))
                }
                continue
            }
            pending.append((entry.value, addNode(parent: node, .key(ArchiveKeys.unescape(entry.key) ?? entry.key))))
        }
    }

    /// Whether `value` can lead to an object not yet visited. A reference to one already
    /// visited would be skipped when taken from the queue: it is not queued at all, so that it
    /// costs no path node (every back-reference of an archive took one).
    private func isWorthVisiting(_ value: PropertyListValue) -> Bool {
        switch value {
        case .uid(let uid): return uid.value >= UInt64(seen.count) || !seen[Int(uid.value)]
        case .array, .set, .dictionary: return true
        default: return false
        }
    }

    /// Queues what a plain container holds.
    mutating func pushValue(_ value: PropertyListValue, from node: Int) {
        pending.append((value, node))
    }

    /// The key path of a node, built only when an error needs it.
    func path(to node: Int) -> ArchiveKeyPath {
        var reversed: [ArchiveKeyPath.Component] = []
        var current = node
        while current >= 0, current < parents.count {
            reversed.append(components[current])
            current = parents[current]
        }
        return ArchiveKeyPath(reversed.reversed())
    }
}

/// What checking an archive's class names found: ``ArchiveRegistry/checkClassNames(of:maximumReported:)``,
/// and `keyedarchive validate`.
public struct ArchiveClassNameReport: Hashable, Sendable {
    /// One ``ArchiveError`` per refused object (code ``ArchiveError/Code/classNotAllowed``,
    /// ``ArchiveError/Code/invalidReference`` for a reference to a class dictionary, or
    /// ``ArchiveError/Code/duplicateKey`` for an object — or `$top` — storing a key twice),
    /// in the order a depth-first walk from `$top` first reaches them, each with the key
    /// path of that first reach, its UID, its `$classes` chain and a remedy.
    public let refusals: [ArchiveError]
    /// How many refusals there were in all (``refusals`` keeps at most the requested number).
    public let refusalCount: Int
    /// How many distinct objects were checked.
    public let checkedObjectCount: Int
    /// The `$classname` of every object refused for its class, each once, in the order the
    /// walk first met them — all of them, however many refusals ``refusals`` leaves out:
    /// what an allowlist would have to add.
    public let refusedClassNames: [String]

    /// Whether every reachable object was admitted.
    public var admitsEverything: Bool { refusalCount == 0 }
}
