// libFuzzer target `typed`: typed decoding of the fleet models (Tests/KeyedArchiveTests/Models/
// FleetModels.swift, compiled in unchanged) through their ArchiveRegistry. Built by
// FuzzTesting/run.sh with FuzzSupport.swift, FuzzArchiveSupport.swift and the PropertyList and
// KeyedArchive sources, as one module.
//
// For every input, through `Fleet.registry` (classes Pilot, Airplane, PoweredAirplane, Glider)
// as `[Pilot]`, `Pilot`, `[Airplane]` and `Airplane`, and through `Fleet.valueRegistry` (the
// struct family) as `[PilotValue]`, `PilotValue` and `any AirplaneRecord`:
//   - decoding fails with an ArchiveError (never a trap), of a code typed decoding documents,
//     located (key path or UID inside `$objects`) where the fault is an object's; bytes the
//     generic view refuses are refused by typed decoding with the same error; or
//   - decoding succeeds on a graph the generic view accepts, and then: re-archiving with
//     KeyedArchiver (binary and XML) succeeds, decoding that gives a graph equal to the first
//     in value (strings compared by Unicode scalars, numbers and dates exactly) and in sharing
//     structure (which objects are the same instance, including the weak owner back-references),
//     and archiving the second decode gives the same bytes as archiving the first;
// The same checks run for `IndexPath`, `ArchiveIndexSet`, `ArchiveOrderedSet<String>` and
// `ArchiveSpecialValue` (NSValue) at `root`, through a registry of Foundation classes only (their
// packed, numbered and text fields).
//   - every top-level value decodes as `ArchiveValue` (the Foundation classes read field by
//     field included) with the default registry and under `inspectsUnknownClasses`, or fails
//     with a typed error; the bytes and the generic view give the same outcome; a decoded value
//     archives again, and under inspection to a graph `ArchiveDiff` calls equal to the input's
//     (sharing and class chains included) wherever the input's classes can be written at all.
//   - decoding the input's bytes directly (`KeyedUnarchiver(bytes:)`, which reads a binary
//     archive in place and takes typed decoding's shortcuts) gives the same outcome as decoding
//     the generic view: the same error (code, UID, key path and message), or an equal graph —
//     also under a visit budget and a primitive policy taken from the input's last byte; and
//     the same bytes in a `Data` slice (`KeyedUnarchiver(data:)`) give what the array gives.
// Any crash, sanitizer report (leaks included: a decoded graph must be freed), timeout,
// out-of-memory or failed check is a finding (Docs/Development/Fuzzing.md).

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func typedFleetFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Every input is decoded on a thread of 512 KiB, the stack of Apple's secondary threads
    // and of many thread pools: a decode that would need more must stop with
    // `stackExhausted`, and one that overflows is a crash libFuzzer reports (issue 22).
    onSmallStack { typedFleetFuzz(bytes) }
    return 0
}

/// Runs `body` on a new thread with a 512 KiB stack and waits for it.
func onSmallStack(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = 512 << 10
    thread.start()
    done.wait()
}

func typedFleetFuzz(_ bytes: [UInt8]) {
    let options = FuzzArchiveOptions.reading

    let graph: ArchiveGraph
    switch Result(catching: { () throws(ArchiveError) in try ArchiveGraph(bytes: bytes, options: options) }) {
    case .success(let parsed):
        graph = parsed
    case .failure(let error):
        switch Result(catching: { () throws(ArchiveError) in try KeyedUnarchiver(bytes: bytes, registry: Fleet.registry, options: options) }) {
        case .success: fuzzFinding("KeyedUnarchiver accepted bytes ArchiveGraph refuses with \(error)")
        case .failure(let again): guard again == error, again.message == error.message else { fuzzFinding("KeyedUnarchiver and ArchiveGraph refuse differently: \(again) vs \(error)") }
        }
        return
    }

    TypedFleet.run(bytes: bytes, graph: graph, options: options)
}

enum TypedFleet {
    static func run(bytes: [UInt8], graph: ArchiveGraph, options: ArchiveReadingOptions) {
        // The class family.
        classes([Pilot].self, bytes: bytes, graph: graph, options: options, shape: { FleetShape.pilots($0) })
        classes(Pilot.self, bytes: bytes, graph: graph, options: options, shape: { FleetShape.pilots([$0]) })
        classes([Airplane].self, bytes: bytes, graph: graph, options: options, shape: { FleetShape.airplanes($0) })
        classes(Airplane.self, bytes: bytes, graph: graph, options: options, shape: { FleetShape.airplanes([$0]) })
        // The struct family.
        classes([PilotValue].self, registry: Fleet.valueRegistry, bytes: bytes, graph: graph, options: options, shape: { FleetShape.pilotValues($0) })
        classes(PilotValue.self, registry: Fleet.valueRegistry, bytes: bytes, graph: graph, options: options, shape: { FleetShape.pilotValues([$0]) })
        family(graph: graph, options: options)
        propertyListTree(bytes: bytes, graph: graph, options: options)
        archiveValues(bytes: bytes, graph: graph, options: options, inspecting: false)
        archiveValues(bytes: bytes, graph: graph, options: options, inspecting: true)
        // Foundation values with packed or numbered fields (NSIndexPath, NSIndexSet, NSOrderedSet).
        let foundation = ArchiveRegistry()
        classes(IndexPath.self, registry: foundation, bytes: bytes, graph: graph, options: options, shape: { path in
            [.object("IndexPath", path.count)] + path.map { .number(UInt64(UInt(bitPattern: $0))) }
        })
        classes(ArchiveIndexSet.self, registry: foundation, bytes: bytes, graph: graph, options: options, shape: { set in
            [.object(set.archivesAsMutable ? "NSMutableIndexSet" : "NSIndexSet", set.ranges.count)]
                + set.ranges.flatMap { [FleetShape.Token.number(UInt64($0.lowerBound)), .number(UInt64($0.upperBound))] }
        })
        classes(ArchiveOrderedSet<String>.self, registry: foundation, bytes: bytes, graph: graph, options: options, shape: { set in
            [.object(set.archivesAsMutable ? "NSMutableOrderedSet" : "NSOrderedSet", set.count)] + set.elements.map { .string(Array($0.utf8)) }
        })
        // NSValue: geometry as %.17g text (exact for every double but NaN's payload), ranges as numbers.
        classes(ArchiveSpecialValue.self, registry: foundation, bytes: bytes, graph: graph, options: options, shape: { value in
            let bits = { (number: Double) in FleetShape.Token.number(number.isNaN ? Double.nan.bitPattern : number.bitPattern) }
            switch value {
            case .point(let point): return [.object("NSValue", 1), bits(point.x), bits(point.y)]
            case .size(let size): return [.object("NSValue", 2), bits(size.width), bits(size.height)]
            case .rect(let rect): return [.object("NSValue", 3), bits(rect.origin.x), bits(rect.origin.y), bits(rect.size.width), bits(rect.size.height)]
            case .range(let range): return [.object("NSValue", 4), .number(UInt64(range.location)), .number(UInt64(range.length))]
            case .edgeInsets(let insets): return [.object("NSValue", 12), bits(insets.top), bits(insets.left), bits(insets.bottom), bits(insets.right)]
            case .cgAffineTransform(let t): return [.object("NSValue", 10), bits(t.a), bits(t.b), bits(t.c), bits(t.d), bits(t.tx), bits(t.ty)]
            case .uiEdgeInsets(let insets): return [.object("NSValue", 11), bits(insets.top), bits(insets.left), bits(insets.bottom), bits(insets.right)]
            case .offset(let offset): return [.object("NSValue", 13), bits(offset.horizontal), bits(offset.vertical)]
            case .directionalEdgeInsets(let insets):
                return [.object("NSValue", 14), bits(insets.top), bits(insets.leading), bits(insets.bottom), bits(insets.trailing)]
            }
        })
    }

    /// A small `Codable` model for the bridge: whatever the tree holds, decoding it may only fail.
    struct CodableLog: Codable {
        var name: String
        var count: Int?
        var ratio: Float?
        var tags: [String]?
        var nested: [String: [Int]]?
    }

    /// What XML keeps of a tree: no real width (every real reads back as 64-bit), no integer
    /// storage form (a 16-byte integer reads back in the ordinary form) and no NaN payload or sign
    /// (every NaN is written `nan`, as Core Foundation writes it: finding F9).
    static func xmlImage(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .real(let real): return .real(.float64(real.doubleValue.isNaN ? .nan : real.doubleValue))
        case .date(let date) where date.secondsSinceReferenceDate.isNaN: return .date(PropertyListDate(secondsSinceReferenceDate: .nan))
        case .integer(let integer): return .integer(PropertyListInteger(high: integer.high, low: integer.low, isStoredAs128Bit: false))
        case .array(let elements): return .array(elements.map(xmlImage))
        case .set(let elements): return .set(elements.map(xmlImage))
        case .dictionary(let dictionary):
            return .dictionary(PropertyListDictionary(entries: dictionary.entries.map { .init(key: $0.key, value: xmlImage($0.value)) }))
        default: return value
        }
    }

    /// `root` as an untyped property-list tree (what `decodeDecodable` reads): the generic view
    /// and the bytes must agree; a tree read must archive and read back equal, in both formats.
    static func propertyListTree(bytes: [UInt8], graph: ArchiveGraph, options: ArchiveReadingOptions) {
        let what = "PropertyListValue"
        let registry = ArchiveRegistry()
        // A small expansion budget, so that comparing and re-archiving a tree stay fast; the
        // generic view is read again under it, so that both paths have the same limits.
        var options = options
        options.propertyList.maximumExpandedValueCount = min(options.propertyList.maximumExpandedValueCount, 100_000)
        guard let graph = try? ArchiveGraph(bytes: bytes, options: options) else { return }
        let usual = Result(catching: { () throws(ArchiveError) in try KeyedUnarchiver(graph: graph, registry: registry, options: options).decode(PropertyListValue.self) })
        let direct = Result(catching: { () throws(ArchiveError) in try KeyedUnarchiver(bytes: bytes, registry: registry, options: options).decode(PropertyListValue.self) })
        let tree: PropertyListValue
        switch (usual, direct) {
        case (.failure(let error), .failure(let again)):
            guard again == error, again.message == error.message else { fuzzFinding("\(what): decoding the bytes and the generic view fail differently: \(again) vs \(error)") }
            checkDecodingError(error, graph: graph, what)
            return
        case (.success(let value), .success(let again)):
            guard value == again else { fuzzFinding("\(what): decoding the bytes and the generic view give different trees") }
            tree = value
        case (.failure(let error), .success):
            fuzzFinding("\(what): decoding the bytes succeeds where the generic view fails with \(error)")
        case (.success, .failure(let error)):
            fuzzFinding("\(what): decoding the bytes fails with \(error) where the generic view succeeds")
        }
        _ = try? PropertyListValueDecoder().decode(CodableLog.self, from: tree)
        _ = try? KeyedUnarchiver(bytes: bytes, registry: registry, options: options).decodeDecodable([CodableLog].self)
        for format in [ArchiveFormat.binary, .xml] {
            let archiver = KeyedArchiver(registry: registry)
            let written: [UInt8]
            switch Result(catching: { () throws(ArchiveError) in try archiver.encode(tree); return try archiver.finish(format: format) }) {
            case .success(let bytes): written = bytes
            case .failure(let error):
                // XML has no form for an integer beyond 64 bits (finding F2), nor for a value its
                // reader would return otherwise (a leading U+FEFF, −0, a NaN payload: issue 26):
                // refusing those is right.
                if format == .xml, error.propertyListError?.code == .unsupportedValue || error.code == .unrepresentableValue { continue }
                // A tree the thread could hold may still be too deep for it to write again (an
                // encoder level takes several KiB under AddressSanitizer): the stop is typed.
                if error.code == .stackExhausted { continue }
                fuzzFinding("\(what): archiving the tree (\(format)) failed: \(error)")
            }
            switch Result(catching: { () throws(ArchiveError) in try KeyedUnarchiver(bytes: written, registry: registry).decode(PropertyListValue.self) }) {
            case .success(let again):
                let same = format == .binary ? again == tree : xmlImage(again) == xmlImage(tree)
                guard same else { fuzzFinding("\(what): tree → archive (\(format)) → tree changed it") }
            case .failure(let error):
                fuzzFinding("\(what): our archive of the tree (\(format)) does not decode: \(error)")
            }
        }
    }

    /// Every top-level value as `ArchiveValue`; under inspection, the rewrite must be the same
    /// graph.
    static func archiveValues(bytes: [UInt8], graph: ArchiveGraph, options: ArchiveReadingOptions, inspecting: Bool) {
        let what = inspecting ? "ArchiveValue (inspecting)" : "ArchiveValue"
        var registry = ArchiveRegistry()
        registry.inspectsUnknownClasses = inspecting
        func decodeAll(_ unarchiver: () throws(ArchiveError) -> KeyedUnarchiver) -> Result<[(String, ArchiveValue?)], ArchiveError> {
            Result { () throws(ArchiveError) in
                let reader = try unarchiver()
                var values: [(String, ArchiveValue?)] = []
                let unkeyed = graph.top.compactMap { $0.key.hasPrefix("$") ? Int($0.key.dropFirst()).map { ($0, "") } : nil }.map(\.0).sorted()
                guard unkeyed == Array(0..<unkeyed.count) else { return [] }
                for position in unkeyed { values.append(("$\(position)", try reader.decodeUnkeyed(ArchiveValue.self, at: position))) }
                for top in graph.top where !(top.key.hasPrefix("$") && Int(top.key.dropFirst()) != nil) {
                    // A stored key no coder can name ("$version" unescaped) cannot be
                    // decoded or written again, so there is no rewrite to compare.
                    guard let key = ArchiveKeys.unescape(top.key) else { return [] }
                    // A number stored in `$top` itself (compiled nibs do) is copied as stored,
                    // as `roundTrip` copies it: an ArchiveValue is an object of `$objects`.
                    guard case .uid = top.value else { continue }
                    values.append((key, try reader.decodeIfPresent(ArchiveValue.self, forKey: key)))
                }
                return values
            }
        }
        let usual = decodeAll { () throws(ArchiveError) in KeyedUnarchiver(graph: graph, registry: registry, options: options) }
        let direct = decodeAll { () throws(ArchiveError) in try KeyedUnarchiver(bytes: bytes, registry: registry, options: options) }
        let values: [(String, ArchiveValue?)]
        switch (usual, direct) {
        case (.failure(let error), .failure(let again)):
            guard again == error, again.message == error.message else { fuzzFinding("\(what): decoding the bytes and the generic view fail differently: \(again) vs \(error)") }
            checkDecodingError(error, graph: graph, what)
            return
        case (.success(let decoded), .success):
            values = decoded
        case (.failure(let error), .success):
            fuzzFinding("\(what): decoding the bytes succeeds where the generic view fails with \(error)")
        case (.success, .failure(let error)):
            fuzzFinding("\(what): decoding the bytes fails with \(error) where the generic view succeeds")
        }
        guard !values.isEmpty else { return }
        var writing = ArchiveWritingOptions.appleFaithful
        writing.maximumDepth = max(writing.maximumDepth, options.maximumDepth)
        let archiver = KeyedArchiver(registry: registry, options: writing)
        let written: [UInt8]
        switch Result(catching: { () throws(ArchiveError) in
            for top in graph.top where !(top.key.hasPrefix("$") && Int(top.key.dropFirst()) != nil) {
                if case .uid = top.value { continue }
                try archiver.topLevelEncoder.encodeRaw(top.value, forStoredKey: top.key)
            }
            for (key, value) in values {
                if key.hasPrefix("$"), Int(key.dropFirst()) != nil, let value { try archiver.encodeUnkeyed(value) } else { try archiver.encode(value, forKey: key) }
            }
            return try archiver.finish()
        }) {
        case .success(let bytes): written = bytes
        case .failure(let error):
            // A value too deep for this thread to write again, or what only a model can write
            // (a registered class's reference; none is registered here), may be refused.
            guard [.depthLimitExceeded, .stackExhausted, .typeMismatch, .duplicateKey].contains(error.code) else { fuzzFinding("\(what): archiving the values failed: \(error)") }
            return
        }
        // Without inspection a value read from an object several references reach holds a copy
        // of it for each (values are trees): written back, those copies are objects of their
        // own, so the archive can be larger than the budgets the input was read under allowed
        // (2^17 small arrays from 66 objects). It must still read under the default budgets.
        guard let again = (try? ArchiveGraph(bytes: written, options: options)) ?? (try? ArchiveGraph(bytes: written)) else {
            fuzzFinding("\(what): our archive of the values does not read")
        }
        // Under inspection nothing is dropped — but a class dictionary whose $classname is not
        // the first of its $classes, or whose $classes is empty, has no form an encoder writes,
        // and a container inside a container stored inline in a field is written back as an
        // object (ArchiveInstance.FieldValue.inline: an inline array's element decodes alike
        // from either; no archiver writes such nesting), as is a date stored in an inline
        // container (written back as the NSDate object a keyed archiver would refer to), and
        // so is a date stored as a plain $objects entry (ArchiveValue.date).
        func nestsInlineContainers(_ value: PropertyListValue) -> Bool {
            func hasNoWrittenForm(_ element: PropertyListValue) -> Bool {
                if case .date = element { return true }
                return element.isContainer
            }
            // References inside an inline container keep their form only in an array of
            // references alone (FieldValue.objects); in a set, a dictionary or beside plain
            // values they come back as values (F17: no archiver writes these shapes).
            let references = { (elements: [PropertyListValue]) in elements.filter { $0.uidValue != nil }.count }
            switch value {
            case .array(let elements):
                let count = references(elements)
                return elements.contains(where: hasNoWrittenForm) || (count > 0 && count < elements.count)
            case .set(let elements): return elements.contains(where: hasNoWrittenForm) || references(elements) > 0
            case .dictionary(let dictionary): return dictionary.entries.contains { hasNoWrittenForm($0.value) || $0.value.uidValue != nil }
            default: return false
            }
        }
        guard inspecting, graph.objects.allSatisfy({ object in
            switch object {
            case .classDescriptor(let descriptor): return descriptor.classes.first.map { $0.isExactlyEqual(to: descriptor.name) } ?? false
            case .instance(let instance): return !instance.storage.entries.contains { nestsInlineContainers($0.value) }
            case .date: return false
            default: return true
            }
        }) else { return }
        let diff = ArchiveDiff(graph, again)
        // An immutable NSString or an NSDate stored as an object where a plain value would do
        // reads as the plain value's case (`.string(_, mutable: false)`, `.date`), which has one
        // written form: known, listed in Docs/Development/Fuzzing.md (F11), not a finding here.
        let plainForms: Set<String> = ["NSString object", "NSDate object"]
        let onlyPlainForms = diff.differences.allSatisfy { $0.kind == .typeChanged && (plainForms.contains($0.a) || plainForms.contains($0.b)) }
        guard diff.isEqual || diff.incompleteReason != nil || (onlyPlainForms && diff.omittedCount == 0) else {
            fuzzFinding("\(what): the rewrite is another graph: \(diff.differences.prefix(3).map(\.description))")
        }
    }

    /// Decodes `T` at `root`; on success re-archives and compares.
    static func classes<T: ArchiveObjectCodable>(_ type: T.Type, registry: ArchiveRegistry = Fleet.registry, bytes: [UInt8], graph: ArchiveGraph,
                                                 options: ArchiveReadingOptions, shape: (T) -> [FleetShape.Token]) {
        let what = "\(T.self)"
        let first: T
        let usual = sameOutcome(type, registry: registry, bytes: bytes, graph: graph, options: options, shape: shape, what)
        // Again under a visit budget and a primitive policy taken from the input, so that the
        // edges of both are reached (the shortcuts of typed decoding must meet them exactly there).
        if let seed = bytes.last {
            var tight = options
            tight.maximumVisitCount = Int(seed)
            var narrow = registry
            narrow.primitives = ArchivePrimitivePolicy(rawValue: seed & 0x3F)
            _ = sameOutcome(type, registry: narrow, bytes: bytes, graph: graph, options: tight, shape: shape, "\(what) (budget \(seed), policy \(seed & 0x3F))")
        }
        switch usual {
        case .failure(let error):
            checkDecodingError(error, graph: graph, what)
            return
        case .success(let value):
            first = value
        }
        let expected = shape(first)
        for format in [ArchiveFormat.binary, .xml] {
            let written: [UInt8]
            switch Result(catching: { () throws(ArchiveError) in try KeyedArchiver.archive(first, registry: registry, format: format, options: .default) }) {
            case .success(let bytes): written = bytes
            case .failure(let error):
                // What XML cannot carry as it is, the XML writer refuses (issue 26).
                if format == .xml, error.code == .unrepresentableValue { continue }
                fuzzFinding("\(what): re-archiving (\(format)) what was decoded failed: \(error)")
            }
            let second: T
            switch Result(catching: { () throws(ArchiveError) in try KeyedUnarchiver.unarchive(type, from: written, registry: registry, options: options) }) {
            case .success(let value): second = value
            case .failure(let error): fuzzFinding("\(what): our own archive (\(format)) does not decode: \(error)")
            }
            let actual = shape(second)
            guard actual == expected else {
                fuzzFinding("\(what): decode → archive (\(format)) → decode changed the graph\nfirst:  \(expected.prefix(60))\nsecond: \(actual.prefix(60))")
            }
            if format == .binary {
                guard (try? KeyedArchiver.archive(second, registry: registry, format: .binary, options: .default)) == written else {
                    fuzzFinding("\(what): archiving the re-decoded graph gives other bytes")
                }
            }
        }
    }

    /// Decodes `T` from the generic view and from the bytes directly; both must give the same
    /// error, or equal graphs. Returns the generic view's outcome.
    static func sameOutcome<T: ArchiveObjectDecodable>(_ type: T.Type, registry: ArchiveRegistry, bytes: [UInt8], graph: ArchiveGraph, options: ArchiveReadingOptions,
                                                     shape: (T) -> [FleetShape.Token], _ what: String) -> Result<T, ArchiveError> {
        let usual = Result(catching: { () throws(ArchiveError) in try KeyedUnarchiver(graph: graph, registry: registry, options: options).decode(type) })
        let direct = Result(catching: { () throws(ArchiveError) in try KeyedUnarchiver(bytes: bytes, registry: registry, options: options).decode(type) })
        switch (usual, direct) {
        case (.failure(let error), .failure(let again)):
            guard again == error, again.message == error.message else { fuzzFinding("\(what): decoding the bytes and the generic view fail differently: \(again) vs \(error)") }
        case (.success(let value), .success(let again)):
            guard shape(again) == shape(value) else { fuzzFinding("\(what): decoding the bytes and the generic view give different graphs") }
        case (.failure(let error), .success):
            fuzzFinding("\(what): decoding the bytes succeeds where the generic view fails with \(error)")
        case (.success, .failure(let error)):
            fuzzFinding("\(what): decoding the bytes fails with \(error) where the generic view succeeds")
        }
        // The same bytes as a `Data` slice, read in place, give what the array gives.
        let slice = (Data([0xA5]) + Data(bytes)).dropFirst()
        let fromData = Result(catching: { () throws(ArchiveError) in try KeyedUnarchiver(data: slice, registry: registry, options: options).decode(type) })
        switch (direct, fromData) {
        case (.failure(let error), .failure(let again)):
            guard again == error, again.message == error.message else { fuzzFinding("\(what): decoding a Data and an array fail differently: \(again) vs \(error)") }
        case (.success(let value), .success(let again)):
            guard shape(again) == shape(value) else { fuzzFinding("\(what): decoding a Data and an array give different graphs") }
        default:
            fuzzFinding("\(what): decoding a Data and an array disagree: \(fromData) vs \(direct)")
        }
        return usual
    }

    /// The struct family at `root`, requested as its protocol.
    static func family(graph: ArchiveGraph, options: ArchiveReadingOptions) {
        let what = "any AirplaneRecord"
        let first: any AirplaneRecord
        switch Result(catching: { () throws(ArchiveError) in try KeyedUnarchiver(graph: graph, registry: Fleet.valueRegistry, options: options).decodeObject(of: (any AirplaneRecord).self) }) {
        case .failure(let error):
            checkDecodingError(error, graph: graph, what)
            return
        case .success(let value):
            first = value
        }
        let expected = FleetShape.airplaneValues([first])
        let written: [UInt8]
        switch Result(catching: { () throws(ArchiveError) in try KeyedArchiver.archive(first, registry: Fleet.valueRegistry) }) {
        case .success(let bytes): written = bytes
        case .failure(let error): fuzzFinding("\(what): re-archiving what was decoded failed: \(error)")
        }
        switch Result(catching: { () throws(ArchiveError) in try KeyedUnarchiver(bytes: written, registry: Fleet.valueRegistry, options: options).decodeObject(of: (any AirplaneRecord).self) }) {
        case .success(let second):
            guard FleetShape.airplaneValues([second]) == expected else { fuzzFinding("\(what): decode → archive → decode changed the value") }
        case .failure(let error): fuzzFinding("\(what): our own archive does not decode: \(error)")
        }
    }

    static let typedCodes: Set<ArchiveError.Code> = [
        .classNotAllowed, .typeNotRegistered, .typeMismatch, .valueNotFound, .valueOutOfRange,
        .cyclicReference, .depthLimitExceeded, .stackExhausted, .budgetExceeded, .duplicateKey, .invalidReference,
        .invalidClassReference, .invalidClassDescriptor,
    ]

    static func checkDecodingError(_ error: ArchiveError, graph: ArchiveGraph, _ what: String) {
        // The models only rethrow what the decoder throws, so `modelError` (a model's own error)
        // and `invalidState` (misuse of the decoder) cannot be right here.
        guard typedCodes.contains(error.code) else { fuzzFinding("\(what): unexpected error code: \(error)") }
        if error.code != .budgetExceeded, error.uid == nil, error.keyPath.components.isEmpty {
            fuzzFinding("\(what): \(error) names neither a key path nor a UID")
        }
        if let uid = error.uid, uid.value >= UInt64(graph.objects.count) {
            fuzzFinding("\(what): \(error) names #\(uid.value) of \(graph.objects.count) objects")
        }
        FuzzArchiveChecks.checkDescriptionIsBounded(error)
    }
}

/// A decoded fleet as a flat list of tokens: values exactly (strings by Unicode scalars, dates
/// by their seconds with NaN equal to NaN), and objects numbered in the order a depth-first walk
/// first meets them, so that two graphs give the same tokens exactly when they are equal in
/// value and in which references are to the same instance.
enum FleetShape {
    enum Token: Hashable, CustomStringConvertible {
        case object(String, Int)
        case reference(Int)
        case string([UInt8])
        case number(UInt64)
        case date(UInt64)
        case none
        case count(Int)

        var description: String {
            switch self {
            case .object(let type, let id): return "\(type)#\(id)"
            case .reference(let id): return "->#\(id)"
            case .string(let utf8): return "\"\(String(decoding: utf8.prefix(40), as: UTF8.self))\""
            case .number(let value): return "\(value)"
            case .date(let bits): return "date(\(Double(bitPattern: bits)))"
            case .none: return "nil"
            case .count(let count): return "[\(count)]"
            }
        }
    }

    struct Walk {
        var tokens: [Token] = []
        var ids: [ObjectIdentifier: Int] = [:]

        /// Strings keep their exact scalars (Swift's `==` is canonical equivalence).
        mutating func string(_ string: String) { tokens.append(.string(Array(string.utf8))) }

        mutating func date(_ date: Date?) {
            guard let date else { tokens.append(.none); return }
            let seconds = date.timeIntervalSinceReferenceDate
            tokens.append(.date(seconds.isNaN ? Double.nan.bitPattern : (seconds == 0 ? 0 : seconds.bitPattern)))
        }

        mutating func notes(_ notes: [String: String]) {
            tokens.append(.count(notes.count))
            for (key, value) in notes.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                string(key)
                string(value)
            }
        }

        /// An object: its number if already met, else a new number and (later) its contents.
        mutating func object(_ object: AnyObject?) {
            guard let object else { tokens.append(.none); return }
            if let id = ids[ObjectIdentifier(object)] {
                tokens.append(.reference(id))
                return
            }
            let id = ids.count
            ids[ObjectIdentifier(object)] = id
            tokens.append(.object(String(describing: type(of: object)), id))
            switch object {
            case let pilot as Pilot:
                string(pilot.name)
                date(pilot.licenseDate)
                notes(pilot.notes)
                tokens.append(.count(pilot.airplanes.count))
                for airplane in pilot.airplanes { self.object(airplane) }
            case let airplane as Airplane:
                string(airplane.model)
                string(airplane.registrationNumber)
                tokens.append(.number(airplane.airframeHours))
                if let powered = airplane as? PoweredAirplane {
                    tokens.append(.number(UInt64(bitPattern: Int64(powered.engineHorsepower))))
                    tokens.append(.number(powered.engineHours))
                }
                if let glider = airplane as? Glider {
                    tokens.append(.number(glider.aerotowLaunchCount))
                    tokens.append(.number(glider.winchLaunchCount))
                }
                self.object(airplane.owner)
            default:
                fuzzFinding("decoded an object of unexpected type \(type(of: object))")
            }
        }

        mutating func record(_ record: any AirplaneRecord) {
            tokens.append(.object(String(describing: type(of: record)), -1))
            string(record.model)
            string(record.registrationNumber)
            tokens.append(.number(record.airframeHours))
            if let powered = record as? PoweredAirplaneValue {
                tokens.append(.number(UInt64(bitPattern: Int64(powered.engineHorsepower))))
                tokens.append(.number(powered.engineHours))
            }
            if let glider = record as? GliderValue {
                tokens.append(.number(glider.aerotowLaunchCount))
                tokens.append(.number(glider.winchLaunchCount))
            }
        }
    }

    static func pilots(_ pilots: [Pilot]) -> [Token] {
        var walk = Walk()
        walk.tokens.append(.count(pilots.count))
        for pilot in pilots { walk.object(pilot) }
        return walk.tokens
    }

    static func airplanes(_ airplanes: [Airplane]) -> [Token] {
        var walk = Walk()
        walk.tokens.append(.count(airplanes.count))
        for airplane in airplanes { walk.object(airplane) }
        return walk.tokens
    }

    static func pilotValues(_ pilots: [PilotValue]) -> [Token] {
        var walk = Walk()
        walk.tokens.append(.count(pilots.count))
        for pilot in pilots {
            walk.tokens.append(.object("PilotValue", -1))
            walk.string(pilot.name)
            walk.date(pilot.licenseDate)
            walk.notes(pilot.notes)
            walk.tokens.append(.count(pilot.airplanes.count))
            for airplane in pilot.airplanes { walk.record(airplane) }
        }
        return walk.tokens
    }

    static func airplaneValues(_ records: [any AirplaneRecord]) -> [Token] {
        var walk = Walk()
        for record in records { walk.record(record) }
        return walk.tokens
    }
}

private extension PropertyListValue {
    var isContainer: Bool {
        switch self {
        case .array, .set, .dictionary: return true
        default: return false
        }
    }
}
