import PropertyList

/// A declared key: the class that declares it and its position in that class's `declaredKeys`.
struct ArchiveSchemaKeyID: Hashable {
    let owner: Int
    let position: Int
}

extension ArchiveSchemaBuilder {
    /// Finds the references that close a cycle, walking each archive depth-first from `$top`
    /// in the order generated models decode: an object's own class's keys first, then its
    /// superclass's (a Swift initializer sets its own properties before calling `super`), each
    /// class's keys in first-seen order; Foundation objects in stored order.
    ///
    /// The first round gives ``ArchiveSchema/Key/cycleCount``. Generated code decodes those keys
    /// after the graph is built, which changes the order the rest is decoded in, so later
    /// rounds put them off too (queued, as the unarchiver queues them, and walked once the
    /// top-level value is done) until no other key closes a cycle.
    mutating func walkForCycles(_ graphs: [ArchiveGraph]) {
        var deferred: Set<ArchiveSchemaKeyID> = []
        var ranks: [Int: [Int: Int]] = [:]
        for round in 0..<Self.maximumWalkRounds {
            var found: [ArchiveSchemaKeyID: Int] = [:]
            var unattributed = 0
            for graph in graphs {
                walk(graph, deferred: deferred, ranks: &ranks, found: &found, unattributed: &unattributed)
            }
            if round == 0 {
                for (key, count) in found { schema.classes[key.owner].declaredKeys[key.position].cycleCount = count }
                schema.unattributedCycleCount = unattributed
            }
            let added = Set(found.keys).subtracting(deferred)
            if added.isEmpty { break }
            deferred.formUnion(added)
        }
        for key in deferred { schema.classes[key.owner].declaredKeys[key.position].isBackReference = true }
    }

    private enum Step {
        case enter(Int, ArchiveSchemaKeyID?)
        case exit(Int)
    }

    private func walk(_ graph: ArchiveGraph, deferred: Set<ArchiveSchemaKeyID>, ranks: inout [Int: [Int: Int]],
                      found: inout [ArchiveSchemaKeyID: Int], unattributed: inout Int) {
        let count = graph.objects.count
        // 0: not reached, 1: being decoded, 2: done.
        var state = [UInt8](repeating: 0, count: count)
        var stack: [Step] = []
        var queue: [(Int, ArchiveSchemaKeyID?)] = []
        var head = 0
        var children: [(Int, ArchiveSchemaKeyID?)] = []

        func run() {
            while let step = stack.popLast() {
                switch step {
                case .exit(let index):
                    state[index] = 2
                case .enter(let index, let attribution):
                    guard index < count else { continue }
                    if state[index] == 1 {
                        if let attribution { found[attribution, default: 0] += 1 } else { unattributed += 1 }
                        continue
                    }
                    guard state[index] == 0 else { continue }
                    state[index] = 1
                    stack.append(.exit(index))
                    children.removeAll(keepingCapacity: true)
                    switch graph.objects[index] {
                    case .instance(let instance):
                        let name = graph.className(of: PropertyListUID(UInt64(index)))
                        if let name, let id = schema.classIndex[name], schema.classes[id].isModel {
                            let rank = ranks[id] ?? rankTable(for: id)
                            ranks[id] = rank
                            var ordered: [(distance: Int, declared: Int, position: Int, key: ArchiveSchemaKeyID?, value: PropertyListValue)] = []
                            for (position, field) in instance.storage.entries.enumerated() where !field.key.isExactlyEqual(to: ArchiveKeys.classKey) {
                                let declared = declaration[id]?[field.key]
                                ordered.append((declared.map { rank[$0.owner] ?? 0 } ?? Int.max, declared?.position ?? 0, position,
                                                declared.map { ArchiveSchemaKeyID(owner: $0.owner, position: $0.position) }, field.value))
                            }
                            ordered.sort { ($0.distance, $0.declared, $0.position) < ($1.distance, $1.declared, $1.position) }
                            for field in ordered {
                                let targets = ArchiveGraph.references(in: field.value)
                                if let key = field.key, deferred.contains(key) {
                                    for target in targets { queue.append((Int(truncatingIfNeeded: target.value), key)) }
                                } else {
                                    for target in targets { children.append((Int(truncatingIfNeeded: target.value), field.key ?? attribution)) }
                                }
                            }
                        } else {
                            for field in instance.storage.entries where !field.key.isExactlyEqual(to: ArchiveKeys.classKey) {
                                for target in ArchiveGraph.references(in: field.value) {
                                    children.append((Int(truncatingIfNeeded: target.value), attribution))
                                }
                            }
                        }
                    case .other(let value):
                        for target in ArchiveGraph.references(in: value) { children.append((Int(truncatingIfNeeded: target.value), attribution)) }
                    default:
                        break
                    }
                    for child in children.reversed() { stack.append(.enter(child.0, child.1)) }
                }
            }
        }

        for entry in graph.top {
            for target in ArchiveGraph.references(in: entry.value) {
                stack.append(.enter(Int(truncatingIfNeeded: target.value), nil))
                run()
            }
            // Put-off keys are resolved once the top-level value is decoded, in the order queued.
            while head < queue.count {
                let (index, key) = queue[head]
                head += 1
                stack.append(.enter(index, key))
                run()
            }
        }
    }

    /// For a class: each ancestor's distance from it (0 for itself), the order its keys decode in.
    private func rankTable(for id: Int) -> [Int: Int] {
        var table: [Int: Int] = [:]
        for (distance, ancestor) in ancestors(of: id).enumerated() { table[ancestor] = distance }
        return table
    }
}
