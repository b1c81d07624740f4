// Runs the round trip of every generated schema (Cases.swift, written by run.sh) and compares
// each result with its source through the generic view (ArchiveGraph), not through the
// generated types: the same values and class names, UIDs and sharing ignored, sets of plain
// values compared as sets (Set<T> writes them sorted). Then with
// ArchiveDiff: values (`diff --values`), and sharing too (strict `diff`), which is reported.
// And the fleet built again through the public memberwise initializers archives the same values.
import Foundation
import KeyedArchive
import Models
import PropertyList

/// An object in a few words: its class, or its kind and value.
func brief(_ object: ArchiveGraph.Object, _ graph: ArchiveGraph, _ uid: PropertyListUID) -> String {
    switch object {
    case .null: return "$null"
    case .instance: return "an instance of \(graph.className(of: uid) ?? "?")"
    case .string(let text): return "the string \(text.debugDescription.prefix(80))"
    default: return String("\(object)".prefix(120))
    }
}

/// Where two archives first differ, as a key path and what each side holds.
func firstDifference(_ source: ArchiveGraph, _ result: ArchiveGraph) -> String? {
    struct Pair: Hashable { let left: UInt64; let right: UInt64 }
    var seen: Set<Pair> = []
    var pending: [(PropertyListValue, PropertyListValue, String)] = []

    func pushFields(_ left: PropertyListDictionary, _ right: PropertyListDictionary, _ path: String) -> String? {
        let leftKeys = left.entries.map(\.key).filter { $0 != "$class" }
        let rightKeys = right.entries.map(\.key).filter { $0 != "$class" }
        guard Set(leftKeys) == Set(rightKeys), leftKeys.count == rightKeys.count else {
            return "\(path): keys \(leftKeys.sorted()) became \(rightKeys.sorted())"
        }
        for key in leftKeys {
            guard let l = left[key], let r = right[key] else { return "\(path).\(key): missing" }
            pending.append((l, r, path + "." + key))
        }
        return nil
    }

    /// A dictionary object's entries by plain-string key, when every key is a plain string.
    func entriesByKey(_ graph: ArchiveGraph, _ instance: ArchiveGraph.Instance) -> [String: PropertyListValue]? {
        guard case .array(let keys)? = instance.storage["NS.keys"], case .array(let values)? = instance.storage["NS.objects"],
              keys.count == values.count else { return nil }
        var result: [String: PropertyListValue] = [:]
        for (key, value) in zip(keys, values) {
            guard case .uid(let uid) = key, case .string(let text)? = graph.object(uid), result[text] == nil else { return nil }
            result[text] = value
        }
        return result
    }

    /// A set's elements, when every one is a plain value, as sorted descriptions.
    func plainElements(_ graph: ArchiveGraph, _ instance: ArchiveGraph.Instance) -> [String]? {
        guard instance.storage.count == 2, case .array(let elements)? = instance.storage["NS.objects"] else { return nil }
        var texts: [String] = []
        for element in elements {
            guard case .uid(let uid) = element, let object = graph.object(uid) else { return nil }
            switch object {
            case .string, .integer, .real, .bool, .data, .date: texts.append("\(object)")
            default: return nil
            }
        }
        return texts.sorted()
    }

    if let fault = pushFields(source.topFields, result.topFields, "$top") { return fault }
    while let (left, right, path) = pending.popLast() {
        switch (left, right) {
        case (.uid(let l), .uid(let r)):
            guard seen.insert(Pair(left: l.value, right: r.value)).inserted else { continue }
            guard let a = source.object(l), let b = result.object(r) else { return "\(path): reference out of range" }
            switch (a, b) {
            case (.null, .null): continue
            case (.instance(let ia), .instance(let ib)):
                let ca = source.classDescriptor(of: l)?.classes ?? [], cb = result.classDescriptor(of: r)?.classes ?? []
                guard ca == cb else { return "\(path): class \(ca.joined(separator: " < ")) became \(cb.joined(separator: " < "))" }
                // A set of plain values (written sorted by Set<T>) compares as a multiset.
                if let name = ca.first, name.hasSuffix("Set"), !name.hasSuffix("OrderedSet"),
                   let pa = plainElements(source, ia), let pb = plainElements(result, ib) {
                    guard pa == pb else { return "\(path): set elements \(pa) became \(pb)" }
                    continue
                }
                if let name = ca.first, name.hasSuffix("Dictionary"), let ea = entriesByKey(source, ia), let eb = entriesByKey(result, ib) {
                    guard Set(ea.keys) == Set(eb.keys) else { return "\(path): dictionary keys \(ea.keys.sorted()) became \(eb.keys.sorted())" }
                    for (key, value) in ea { if let other = eb[key] { pending.append((value, other, "\(path)[\(key)]")) } }
                    continue
                }
                if let fault = pushFields(ia.storage, ib.storage, path) { return fault }
            case (.classDescriptor, .classDescriptor): continue
            default:
                guard a == b else { return "\(path): \(brief(a, source, l)) became \(brief(b, result, r))" }
            }
        case (.array(let l), .array(let r)), (.set(let l), .set(let r)):
            guard l.count == r.count else { return "\(path): \(l.count) elements became \(r.count)" }
            for (index, pair) in zip(l, r).enumerated() { pending.append((pair.0, pair.1, "\(path)[\(index)]")) }
        case (.dictionary(let l), .dictionary(let r)):
            if let fault = pushFields(l, r, path) { return fault }
        default:
            guard left == right else { return "\(path): \(left) became \(right)" }
        }
    }
    return nil
}

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--example" {
    guard let example else {
        print("no example: the corpus is absent")
        exit(0)
    }
    do {
        try example(CommandLine.arguments[2])
        exit(0)
    } catch {
        print("the example failed: \(error)")
        exit(1)
    }
}

/// The fleet's pilots built again from the decoded ones through the generated initializers
/// (public, from the Models target) and archived: `diff --values` must find the fixture's values.
func fleetFromInitializers(_ path: String) throws -> String? {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let decoded = try KeyedUnarchiver(bytes: bytes, registry: PublicFleet.registry).decode([PublicFleet.Pilot].self)
    // Airplanes first (one copy per airplane, wherever it is listed), then the pilots that
    // list them, then each copy's owner: the copy of its owner.
    var airplaneCopies: [ObjectIdentifier: PublicFleet.Airplane] = [:]
    for airplane in decoded.flatMap(\.airplanes) where airplaneCopies[ObjectIdentifier(airplane)] == nil {
        let copy: PublicFleet.Airplane
        switch airplane {
        case let glider as PublicFleet.Glider:
            copy = PublicFleet.Glider(registrationNumber: glider.registrationNumber, model: glider.model, airframeHours: glider.airframeHours,
                                      aerotowLaunchCount: glider.aerotowLaunchCount, winchLaunchCount: glider.winchLaunchCount)
        case let powered as PublicFleet.PoweredAirplane:
            copy = PublicFleet.PoweredAirplane(registrationNumber: powered.registrationNumber, model: powered.model, airframeHours: powered.airframeHours,
                                               engineHours: powered.engineHours, engineHorsepower: powered.engineHorsepower)
        default:
            copy = PublicFleet.Airplane(registrationNumber: airplane.registrationNumber, model: airplane.model, airframeHours: airplane.airframeHours)
        }
        airplaneCopies[ObjectIdentifier(airplane)] = copy
    }
    var pilotCopies: [ObjectIdentifier: PublicFleet.Pilot] = [:]
    let rebuilt = decoded.map { pilot in
        let copy = PublicFleet.Pilot(licenseDate: pilot.licenseDate, name: pilot.name,
                                     airplanes: pilot.airplanes.compactMap { airplaneCopies[ObjectIdentifier($0)] }, notes: pilot.notes)
        pilotCopies[ObjectIdentifier(pilot)] = copy
        return copy
    }
    for airplane in decoded.flatMap(\.airplanes) {
        airplaneCopies[ObjectIdentifier(airplane)]?.owner = airplane.owner.flatMap { pilotCopies[ObjectIdentifier($0)] }
    }
    let archiver = KeyedArchiver(registry: PublicFleet.registry)
    try archiver.encode(rebuilt)
    var options = ArchiveDiff.Options()
    options.valuesOnly = true
    let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: try archiver.finish()), options: options)
    return diff.isEqual ? nil : diff.description
}

var failures = 0
var strictlyEqual = 0
var strictDifferences: [String] = []
if let fleet = cases.first(where: { $0.path.hasSuffix("Fixtures/fleet.plist") }) {
    do {
        if let difference = try fleetFromInitializers(fleet.path) {
            failures += 1
            print("DIFFERS the fleet built through the initializers: \(difference)")
        } else {
            print("OK the fleet built through the generated initializers archives the fixture's values")
        }
    } catch {
        failures += 1
        print("FAILED the fleet built through the generated initializers: \(error)")
    }
}
for (path, roundTrip) in cases {
    let name = URL(fileURLWithPath: path).lastPathComponent
    do {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let output = try roundTrip(bytes)
        // For comparing with other tools (run.sh --write DIR): NAME.roundtrip beside nothing else.
        if let folder = ProcessInfo.processInfo.environment["SCHEMA_ROUNDTRIP_DIR"] {
            try Data(output).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name + ".roundtrip"))
        }
        let sameFormat = bytes.starts(with: Array("bplist".utf8)) == output.starts(with: Array("bplist".utf8))
        let source = try ArchiveGraph(bytes: bytes), result = try ArchiveGraph(bytes: output)
        var valuesOnly = ArchiveDiff.Options()
        valuesOnly.valuesOnly = true
        let values = ArchiveDiff(source, result, options: valuesOnly)
        let strict = ArchiveDiff(source, result)
        if let difference = firstDifference(source, result) {
            failures += 1
            print("DIFFERS \(name): \(difference)")
        } else if !values.isEqual {
            failures += 1
            print("DIFFERS \(name) (diff --values): \(values.differences.prefix(3).map(\.description).joined(separator: "; "))")
        } else if !sameFormat {
            failures += 1
            print("DIFFERS \(name): the format changed")
        } else {
            print("OK \(name)")
        }
        if strict.isEqual {
            strictlyEqual += 1
        } else {
            strictDifferences.append("\(name): \(strict.differences.count) difference(s), first \(strict.differences.first?.description ?? strict.description)")
        }
    } catch {
        failures += 1
        print("FAILED \(name): \(error)")
    }
}
for line in strictDifferences { print("SHARING \(line.prefix(400))") }
print("round trips: \(cases.count - min(failures, cases.count)) of \(cases.count) give the same values and class names; \(strictlyEqual) of \(cases.count) equal to strict diff, sharing included")
if let minimum = ProcessInfo.processInfo.environment["SCHEMA_STRICT_MINIMUM"].flatMap(Int.init), strictlyEqual < minimum {
    print("fewer than \(minimum) round trips equal to strict diff")
    failures += 1
}
exit(failures == 0 ? 0 : 1)
