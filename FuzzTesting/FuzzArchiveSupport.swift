// Shared checks for the keyed-archive fuzz targets (`archive`, `typed`). Compiled with the
// PropertyList and KeyedArchive sources and FuzzSupport.swift into one module (FuzzTesting/run.sh),
// but uses only public API and its own model of the format's rules.

/// Reading options for fuzzing: the defaults, with the budgets that bound work per input
/// lowered so that a legitimately shared structure cannot make one input take seconds (each
/// budget is tested at its default by the test suite and the hostile corpus).
enum FuzzArchiveOptions {
    static let reading: ArchiveReadingOptions = {
        var options = ArchiveReadingOptions()
        options.propertyList = FuzzOptions.reading
        options.maximumExpansionCount = 1 << 18
        options.maximumVisitCount = 1 << 18
        options.maximumTotalElementCount = 1 << 18
        return options
    }()
}

enum FuzzArchiveChecks {
    /// The binary table and the graph show typed decoding the same `$top` and objects.
    static func checkTableAgrees(_ table: BinaryArchiveTable, _ graph: ArchiveGraph) {
        guard table.top == graph.topFields else { fuzzFinding("binary table: $top differs from the graph's") }
        let direct = ArchiveObjectStore.binary(table), usual = ArchiveObjectStore.graph(graph)
        guard direct.count == usual.count else { fuzzFinding("binary table: \(direct.count) objects, the graph \(usual.count)") }
        for uid in 0..<direct.count {
            let same: Bool
            switch (direct.object(uid), usual.object(uid)) {
            case (.null, .null): same = true
            case (.string(let a), .string(let b)): same = a.isExactlyEqual(to: b)
            case (.integer(let a), .integer(let b)): same = a == b
            case (.real(let a), .real(let b)): same = a == b
            case (.bool(let a), .bool(let b)): same = a == b
            case (.data(let a), .data(let b)): same = a == b
            case (.date(let a), .date(let b)): same = a == b
            case (.classDescriptor(let a), .classDescriptor(let b)): same = a == b
            case (.instance(let a), .instance(let b)):
                same = a.classUID == b.classUID && a.fields.dictionary == b.fields.dictionary
                    && direct.classDescriptor(of: uid) == usual.classDescriptor(of: uid)
                    && (a.fields.firstDuplicateKey() == nil) == (b.fields.firstDuplicateKey() == nil)
            default: same = false
            }
            guard same else { fuzzFinding("binary table: object \(uid) differs from the graph's") }
        }
    }

    /// A property-list error names a byte offset inside the input or a line and column.
    static func checkPropertyListLocation(_ error: PropertyListError, size: Int) {
        switch error.location {
        case .byteOffset(let offset):
            guard offset >= 0, offset <= size else { fuzzFinding("\(error) has a byte offset outside the \(size)-byte input") }
        case .line(let line, let column):
            guard line >= 1, column >= 1 else { fuzzFinding("\(error) has a bad line location") }
        case .none:
            fuzzFinding("\(error) names no location")
        }
    }

    /// The `$objects` count of a property list that has one.
    static func objectCount(_ propertyList: PropertyListValue) -> Int? {
        guard case .dictionary(let root) = propertyList else { return nil }
        var count: Int?
        for entry in root.entries where entry.key.unicodeScalars.elementsEqual("$objects".unicodeScalars) {
            if case .array(let objects) = entry.value { count = objects.count } else { count = nil }
        }
        return count
    }

    /// A structural refusal of a readable property list: one of the graph's codes, located
    /// where the fault is an object's.
    static func checkGraphError(_ error: ArchiveError, propertyList: PropertyListValue) {
        let located: Set<ArchiveError.Code> = [.invalidReference, .invalidClassReference, .invalidClassDescriptor]
        let allowed: Set<ArchiveError.Code> = located.union([.invalidArchiveHeader, .budgetExceeded])
        guard allowed.contains(error.code) else { fuzzFinding("ArchiveGraph refused with an unexpected code: \(error)") }
        if located.contains(error.code), error.uid == nil, error.keyPath.components.isEmpty {
            fuzzFinding("ArchiveGraph: \(error) names neither a UID nor a $top key")
        }
        if let uid = error.uid {
            guard let count = objectCount(propertyList), uid.value < UInt64(count) else {
                fuzzFinding("ArchiveGraph: \(error) names object #\(uid.value), outside $objects")
            }
        }
        checkDescriptionIsBounded(error)
    }

    /// An error's description stays short whatever the input (names are cut).
    static func checkDescriptionIsBounded(_ error: ArchiveError) {
        let text = error.description
        guard text.utf8.count <= 64 * 1024 else { fuzzFinding("error description of \(text.utf8.count) bytes: \(text.prefix(300))") }
    }

    /// Every invariant of a validated graph that the public API lets us state.
    static func checkGraph(_ graph: ArchiveGraph) {
        // Any archiver's name is read, as Apple's unarchiver reads it (issue 51: SceneKit's
        // SCNKeyedArchiver); the version is the one Apple checks (F16).
        guard graph.version == PropertyListInteger(100_000) else {
            fuzzFinding("graph header \(graph.archiver) \(graph.version)")
        }
        let count = graph.objects.count
        guard count >= 1, graph.objects[0] == .null else { fuzzFinding("$objects[0] is not $null") }
        guard graph.object(PropertyListUID(UInt64(count))) == nil, graph.object(PropertyListUID(UInt64.max)) == nil else {
            fuzzFinding("object(_:) answers past the end of $objects")
        }
        func inRange(_ uid: PropertyListUID, _ what: @autoclosure () -> String) {
            guard uid.value < UInt64(count) else { fuzzFinding("\(what()) refers to #\(uid.value) of \(count) objects") }
        }
        for entry in graph.top {
            for uid in ArchiveGraph.references(in: entry.value) { inRange(uid, "$top[\(entry.key)]") }
            if let uid = entry.uid {
                inRange(uid, "$top[\(entry.key)]")
                if case .uid(let stored) = entry.value, stored != uid { fuzzFinding("TopEntry.uid differs from the stored UID") }
            }
            // The last entry with a key wins, as in a dictionary read key by key.
            guard graph.topUID(forKey: entry.key) == graph.top.last(where: { $0.key.unicodeScalars.elementsEqual(entry.key.unicodeScalars) })?.uid else {
                fuzzFinding("topUID(forKey:) is not the last $top entry with that key")
            }
        }
        for index in 0..<count {
            let uid = PropertyListUID(UInt64(index))
            guard let object = graph.object(uid), object == graph.objects[index] else { fuzzFinding("object(#\(index)) is not objects[\(index)]") }
            let references = graph.references(of: uid)
            for target in references { inRange(target, "object #\(index)") }
            switch object {
            case .instance(let instance):
                inRange(instance.classUID, "$class of #\(index)")
                guard case .classDescriptor(let descriptor)? = graph.object(instance.classUID) else {
                    fuzzFinding("$class of #\(index) is not a class descriptor")
                }
                guard graph.classDescriptor(of: uid) == descriptor, graph.className(of: uid) == descriptor.name else {
                    fuzzFinding("classDescriptor(of:)/className(of:) of #\(index) disagree with its $class")
                }
                guard references.contains(instance.classUID) else { fuzzFinding("references(of: #\(index)) leaves out its class") }
                // The stored dictionary holds `$class` (as that UID) and the fields.
                var classEntries = 0
                for entry in instance.storage.entries where entry.key.unicodeScalars.elementsEqual("$class".unicodeScalars) {
                    classEntries += 1
                    guard entry.value == .uid(instance.classUID) else { fuzzFinding("#\(index): stored $class is not classUID") }
                }
                guard classEntries == 1, instance.fields.count == instance.storage.count - 1 else {
                    fuzzFinding("#\(index): \(classEntries) $class entries, \(instance.fields.count) fields of \(instance.storage.count)")
                }
                var fieldReferences: [PropertyListUID] = []
                for field in instance.fields {
                    guard !field.key.unicodeScalars.elementsEqual("$class".unicodeScalars) else { fuzzFinding("#\(index): fields include $class") }
                    guard instance.value(forStoredKey: field.key) != nil else { fuzzFinding("#\(index): value(forStoredKey:) misses field \(field.key)") }
                    fieldReferences += ArchiveGraph.references(in: field.value)
                }
                guard (fieldReferences + [instance.classUID]).sorted(by: { $0.value < $1.value }) == references.sorted(by: { $0.value < $1.value }) else {
                    fuzzFinding("references(of: #\(index)) are not its class and its fields' UIDs")
                }
            case .classDescriptor(let descriptor):
                guard graph.classDescriptor(of: uid) == nil, graph.className(of: uid) == nil, references.isEmpty else {
                    fuzzFinding("class descriptor #\(index) answers as an instance")
                }
                guard descriptor.classes.count <= FuzzArchiveOptions.reading.maximumClassChainLength,
                      (descriptor.hints?.count ?? 0) <= FuzzArchiveOptions.reading.maximumClassChainLength else {
                    fuzzFinding("class descriptor #\(index) beyond maximumClassChainLength")
                }
            case .other(let value):
                guard references == ArchiveGraph.references(in: value), graph.className(of: uid) == nil else {
                    fuzzFinding("references(of: #\(index)) are not those of its value")
                }
                if case .dictionary(let dictionary) = value,
                   dictionary.entries.contains(where: { $0.key.unicodeScalars.elementsEqual("$class".unicodeScalars) }) {
                    fuzzFinding("#\(index): a dictionary with $class classified as a plain value")
                }
            case .null:
                guard index == 0 else { fuzzFinding("$null classified at #\(index)") }
            default:
                guard references.isEmpty, graph.className(of: uid) == nil else { fuzzFinding("plain value #\(index) has references") }
            }
        }
    }

    /// The objects the renderers must expand: reachable from `$top` through references, `$class`
    /// edges left out (class descriptors print in the `$classes` table), and the target of a bare
    /// UID entry not followed (it prints as a `$uid` marker).
    static func reachable(_ graph: ArchiveGraph) -> [Bool] {
        var seen = [Bool](repeating: false, count: graph.objects.count)
        var stack: [PropertyListUID] = []
        for entry in graph.top { stack += ArchiveGraph.references(in: entry.value) }
        while let uid = stack.popLast() {
            let index = Int(uid.value)
            guard !seen[index] else { continue }
            seen[index] = true
            switch graph.objects[index] {
            case .instance(let instance):
                for field in instance.fields { stack += ArchiveGraph.references(in: field.value) }
            case .other(.uid):
                // A bare UID stored as an `$objects` entry renders as `{"$id": n, "$uid": m}`
                // and is not followed (Docs/KeyedArchiveFormat.md; F6 was this model's mistake).
                break
            case .other(let value):
                stack += ArchiveGraph.references(in: value)
            default: break
            }
        }
        return seen
    }

    /// Dump and JSON under the expansion budget.
    static func checkRenderings(_ graph: ArchiveGraph, budget: Int) {
        let dump = Result { () throws(ArchiveError) in try ArchiveDumper.dump(graph, budget: budget) }
        let json = Result { () throws(ArchiveError) in try ArchiveJSONRenderer.render(graph, budget: budget) }
        switch (dump, json) {
        case (.failure(let a), .failure(let b)):
            guard a.code == .budgetExceeded, b.code == .budgetExceeded else { fuzzFinding("renderers failed with \(a) / \(b)") }
            return
        case (.success(let text), .success(let jsonText)):
            guard (try? ArchiveDumper.dump(graph, budget: budget)) == text else { fuzzFinding("dump is not deterministic") }
            guard (try? ArchiveJSONRenderer.render(graph, budget: budget)) == jsonText else { fuzzFinding("JSON is not deterministic") }
            checkJSON(jsonText, graph: graph)
        default:
            fuzzFinding("dump and JSON disagree on the expansion budget: \(dump.map { _ in "ok" }) vs \(json.map { _ in "ok" })")
        }
    }

    static func checkJSON(_ text: String, graph: ArchiveGraph) {
        let bytes = Array(text.utf8)
        guard FuzzJSON.isValid(bytes) else { fuzzFinding("archive JSON is not strict JSON: \(text.prefix(600))") }
        // `{"$id": n` and `{"$ref": n` cannot occur inside a JSON string (its quotes would be
        // escaped), so a scan finds exactly the renderer's markers.
        let count = graph.objects.count
        var expanded = [Bool](repeating: false, count: count)
        let idMarker = Array("{\"$id\": ".utf8), refMarker = Array("{\"$ref\": ".utf8)
        var position = 0
        func number(at start: Int) -> Int {
            var value = 0, index = start
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                value = value &* 10 &+ Int(bytes[index] - 48)
                index += 1
            }
            guard index > start, value >= 0, value < count else { fuzzFinding("JSON marker names #\(value) of \(count) objects") }
            return value
        }
        func matches(_ marker: [UInt8], at index: Int) -> Bool {
            index + marker.count <= bytes.count && bytes[index..<(index + marker.count)].elementsEqual(marker)
        }
        while position < bytes.count {
            guard bytes[position] == UInt8(ascii: "{") else { position += 1; continue }
            if matches(idMarker, at: position) {
                let uid = number(at: position + idMarker.count)
                guard !expanded[uid] else { fuzzFinding("JSON expands #\(uid) twice") }
                expanded[uid] = true
            } else if matches(refMarker, at: position) {
                let uid = number(at: position + refMarker.count)
                if case .classDescriptor = graph.objects[uid] {} else {
                    guard expanded[uid] else { fuzzFinding("JSON refers to #\(uid) before expanding it") }
                }
            }
            position += 1
        }
        let reachable = reachable(graph)
        for index in 0..<count {
            if expanded[index] && !reachable[index] { fuzzFinding("JSON expands #\(index), which $top does not reach") }
            switch graph.objects[index] {
            case .instance, .other:
                if reachable[index] && !expanded[index] { fuzzFinding("JSON never expands reachable #\(index)") }
            case .null, .classDescriptor, .integer, .real, .bool, .date:
                if expanded[index] { fuzzFinding("JSON gives #\(index), a plain scalar or class, an $id") }
            case .string, .data:
                break // short ones are inlined at every use, long ones expanded once
            }
        }
    }
}
