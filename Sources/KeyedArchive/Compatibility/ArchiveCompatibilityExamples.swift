import PropertyList

/// Finds, for each change that wants one, an archive and key path where it shows: one
/// breadth-first walk from `$top` per archive of the side asked (the first match is a shortest
/// path), stopped as soon as every question about that side has an answer.
enum ArchiveCompatibilityExamples {
    typealias Query = ArchiveCompatibilityExampleQuery

    static func resolve(_ found: [ArchiveCompatibilityFinding], old: ArchiveSchemaSource, new: ArchiveSchemaSource) -> [ArchiveCompatibility.Change] {
        var changes = found.map(\.change)
        for side in [Query.Side.old, .new] {
            let source = side == .old ? old : new
            var waiting: [Query: [Int]] = [:]
            for (index, finding) in found.enumerated() {
                if let query = finding.query, query.side == side { waiting[query, default: []].append(index) }
            }
            for archive in source.archives where !waiting.isEmpty {
                for (query, path) in search(archive.graph, for: Array(waiting.keys)) {
                    for index in waiting[query] ?? [] {
                        changes[index].exampleArchive = archive.name
                        changes[index].exampleKeyPath = path
                        changes[index].exampleIsNew = side == .new
                    }
                    waiting[query] = nil
                }
            }
        }
        return changes
    }

    /// Each query's answer in `graph`, as a key path.
    static func search(_ graph: ArchiveGraph, for queries: [Query]) -> [Query: String] {
        var answers: [Query: String] = [:]
        var byClass: [String: [Query]] = [:]
        for query in queries {
            if query.className == ArchiveCompatibilityComparison.topName {
                if let path = answerAtTop(query, graph) { answers[query] = path }
            } else {
                byClass[query.className, default: []].append(query)
            }
        }
        guard !byClass.isEmpty else { return answers }
        var remaining = byClass.values.reduce(0) { $0 + $1.count }
        let count = graph.objects.count
        // How each object was first reached: the object it was reached from (-1 for $top) and
        // the key and/or index of the step.
        var parent = [Int32](repeating: -2, count: count)
        var stepKey = [String?](repeating: nil, count: count)
        var stepIndex = [Int32](repeating: -1, count: count)
        var queue: [Int] = []
        var head = 0
        func reach(_ value: PropertyListValue, from origin: Int32, key: String?) {
            switch value {
            case .uid(let uid):
                enqueue(uid, from: origin, key: key, index: -1)
            case .array(let items):
                for (position, item) in items.enumerated() {
                    if case .uid(let uid) = item { enqueue(uid, from: origin, key: key, index: Int32(truncatingIfNeeded: position)) }
                }
            default:
                for uid in ArchiveGraph.references(in: value) { enqueue(uid, from: origin, key: key, index: -1) }
            }
        }
        func enqueue(_ uid: PropertyListUID, from origin: Int32, key: String?, index: Int32) {
            guard uid.value < UInt64(count) else { return }
            let target = Int(uid.value)
            guard parent[target] == -2 else { return }
            parent[target] = origin
            stepKey[target] = key
            stepIndex[target] = index
            queue.append(target)
        }
        func path(to object: Int) -> ArchiveKeyPath {
            var components: [ArchiveKeyPath.Component] = []
            var current = object
            var steps = 0
            while current >= 0, steps <= count {
                if stepIndex[current] >= 0 { components.append(.index(Int(stepIndex[current]))) }
                if let key = stepKey[current] { components.append(.key(key)) }
                current = Int(parent[current])
                steps += 1
            }
            return ArchiveKeyPath(components.reversed())
        }
        for entry in graph.top {
            reach(entry.value, from: -1, key: entry.key)
        }
        while head < queue.count, remaining > 0 {
            let index = queue[head]
            head += 1
            guard case .instance(let instance) = graph.objects[index] else {
                if case .other(let value) = graph.objects[index] { reach(value, from: Int32(index), key: nil) }
                continue
            }
            let className = graph.className(of: PropertyListUID(UInt64(index))) ?? ""
            if let waiting = byClass[className] {
                var unanswered: [Query] = []
                for query in waiting {
                    if let answer = answer(query, instance.storage, graph) {
                        answers[query] = answer.map { path(to: index).appending(key: $0).description } ?? path(to: index).description
                        remaining -= 1
                    } else {
                        unanswered.append(query)
                    }
                }
                byClass[className] = unanswered.isEmpty ? nil : unanswered
            }
            // A Foundation collection's elements are labelled by index (a dictionary's by their
            // string key), as key paths label them; a model's references by key.
            let origin = Int32(truncatingIfNeeded: index)
            if ArchiveSchemaBuilder.collectionClasses.contains(className), case .array(let values)? = instance.storage["NS.objects"] {
                let keys = className.hasSuffix("Dictionary") ? instance.storage["NS.keys"]?.arrayValue ?? [] : []
                for (position, value) in values.enumerated() {
                    guard case .uid(let uid) = value else { continue }
                    if position < keys.count, case .uid(let keyUID) = keys[position], case .string(let text)? = graph.object(keyUID) {
                        enqueue(uid, from: origin, key: text, index: -1)
                    } else {
                        enqueue(uid, from: origin, key: nil, index: Int32(truncatingIfNeeded: position))
                    }
                }
                continue
            }
            for field in instance.storage.entries where !field.key.isExactlyEqual(to: ArchiveKeys.classKey) {
                reach(field.value, from: origin, key: ArchiveKeys.unescape(field.key) ?? field.key)
            }
        }
        // An object no path from $top reaches (a hostile or damaged archive can hold one) is
        // named by its place in $objects.
        if remaining > 0 {
            for (index, object) in graph.objects.enumerated() where parent[index] == -2 {
                guard case .instance(let instance) = object, let className = graph.className(of: PropertyListUID(UInt64(index))),
                      let waiting = byClass[className] else { continue }
                var unanswered: [Query] = []
                for query in waiting {
                    if let answer = answer(query, instance.storage, graph) {
                        let place = "$objects[\(index)]" + (answer.map { ".\(ArchiveKeyPath([.key($0)]).description)" } ?? "")
                        answers[query] = place + " (not reachable from $top)"
                    } else {
                        unanswered.append(query)
                    }
                }
                byClass[className] = unanswered.isEmpty ? nil : unanswered
                if byClass.isEmpty { break }
            }
        }
        return answers
    }

    /// Whether an instance answers a query: nil when not, `.some(nil)` for the instance itself,
    /// `.some(key)` for one of its keys (the user key, as paths show it).
    private static func answer(_ query: Query, _ storage: PropertyListDictionary, _ graph: ArchiveGraph) -> String?? {
        func userKey(_ key: String) -> String { ArchiveKeys.unescape(key) ?? key }
        switch query.match {
        case .any:
            return .some(nil)
        case .hasKey(let key):
            return storage[key] == nil ? nil : .some(userKey(key))
        case .lacksKey(let key):
            return storage[key] == nil ? .some(nil) : nil
        case .nullUnder(let key):
            guard let value = storage[key], ArchiveSchemaBuilder.kind(of: value, in: graph) == .null else { return nil }
            return .some(userKey(key))
        case .kinds(let key, let kinds):
            guard let value = storage[key], kinds.contains(ArchiveSchemaBuilder.kind(of: value, in: graph)) else { return nil }
            return .some(userKey(key))
        }
    }

    private static func answerAtTop(_ query: Query, _ graph: ArchiveGraph) -> String? {
        let entry = graph.top.first { isKey($0.key, of: query) }
        switch query.match {
        case .any:
            return "$top"
        case .hasKey:
            return entry.map { ArchiveKeyPath([.key($0.key)]).description }
        case .lacksKey(let key):
            return graph.top.contains { $0.key.isExactlyEqual(to: key) } ? nil : "$top (no \(ArchiveKeyPath([.key(key)]).description))"
        case .nullUnder:
            guard let entry, ArchiveSchemaBuilder.kind(of: entry.value, in: graph) == .null else { return nil }
            return ArchiveKeyPath([.key(entry.key)]).description
        case .kinds(_, let kinds):
            guard let entry, kinds.contains(ArchiveSchemaBuilder.kind(of: entry.value, in: graph)) else { return nil }
            return ArchiveKeyPath([.key(entry.key)]).description
        }
    }

    private static func isKey(_ key: String, of query: Query) -> Bool {
        switch query.match {
        case .any: return false
        case .hasKey(let name), .lacksKey(let name), .nullUnder(let name), .kinds(let name, _): return key.isExactlyEqual(to: name)
        }
    }
}
