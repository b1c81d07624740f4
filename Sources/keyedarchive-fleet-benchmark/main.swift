import BenchmarkSupport
import Foundation
import KeyedArchive
import PropertyList

// Fleet benchmark: our KeyedArchiver/KeyedUnarchiver against Foundation's NSKeyedArchiver/
// NSKeyedUnarchiver on the same fleet graph (pilots × airplanes, 20% shared airplanes, owner
// back-references encoded conditionally), in one run. Release builds only:
//     swift run -c release keyedarchive-fleet-benchmark [--sizes 10000,100000,1000000]
// Each case runs in a fresh child process so that its peak memory (VmHWM) is its own.

struct Measurement {
    var wall: Double
    var cpu: Double
    var peakBytes: Int
    var runs: Int
}

/// Pilots for a target object count: one pilot brings about 20 archive objects (itself, its
/// name, airplane list, notes, half a date, four airplanes with their registrations and
/// their UInt64 counters, which NSKeyedArchiver stores as NSNumber objects).
func pilots(forObjects objects: Int) -> Int { max(1, objects / 20) }

func foundationEncode(_ pilots: [FPilot], format: PropertyListSerialization.PropertyListFormat) -> Data {
    let archiver = NSKeyedArchiver(requiringSecureCoding: true)
    archiver.outputFormat = format
    archiver.encode(pilots as NSArray, forKey: NSKeyedArchiveRootObjectKey)
    archiver.finishEncoding()
    return archiver.encodedData
}

func foundationDecode(_ data: Data) throws -> [FPilot] {
    let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    unarchiver.requiresSecureCoding = true
    guard let pilots = unarchiver.decodeObject(of: FPilot.allowedClasses, forKey: NSKeyedArchiveRootObjectKey) as? [FPilot] else {
        throw CocoaError(.coderReadCorrupt)
    }
    return pilots
}

func ourEncode(_ pilots: [Pilot], format: ArchiveFormat) throws -> [UInt8] {
    try KeyedArchiver.archive(pilots, registry: Fleet.registry, format: format)
}

func ourDecode(_ bytes: [UInt8]) throws -> [Pilot] {
    try KeyedUnarchiver.unarchive([Pilot].self, from: bytes, registry: Fleet.registry)
}

func inputPath(_ directory: String, _ side: String, _ format: String) -> String {
    "\(directory)/\(side).\(format == "binary" ? "bplist" : "xml")"
}

/// One case in this process; prints "wall cpu peak runs". The graph or the input bytes are made
/// before the peak baseline is taken; the first (timed) run is the one whose peak is reported.
func runCase(_ name: String, pilotCount: Int, directory: String, runs: Int, budget: Double) throws {
    let parts = name.split(separator: "-").map(String.init)
    guard parts.count == 3 else { throw CocoaError(.featureUnsupported) }
    let (side, operation, format) = (parts[0], parts[1], parts[2])
    var operationBody: () throws -> Void
    var keep: [AnyObject] = []
    switch (side, operation) {
    case ("ours", "build"):
        operationBody = { _ = Fleet.make(pilots: pilotCount) }
    case ("ours", "encode"):
        let graph = Fleet.make(pilots: pilotCount)
        keep = graph
        let archiveFormat: ArchiveFormat = format == "binary" ? .binary : .xml
        operationBody = { _ = try ourEncode(graph, format: archiveFormat) }
    case ("ours", "decode"):
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: inputPath(directory, "ours", format))))
        operationBody = { _ = try ourDecode(bytes) }
    case ("ours", "graphdata"):
        // The library's entry points a service calls on a large archive (`--entry-points`).
        let data = try Data(contentsOf: URL(fileURLWithPath: inputPath(directory, "ours", format)))
        operationBody = { _ = try ArchiveGraph(data: data) }
    case ("ours", "decodedata"):
        let data = try Data(contentsOf: URL(fileURLWithPath: inputPath(directory, "ours", format)))
        operationBody = { _ = try KeyedUnarchiver.unarchive([Pilot].self, from: data, registry: Fleet.registry) }
    case ("ours", "archiveddata"):
        let graph = Fleet.make(pilots: pilotCount)
        keep = graph
        let archiveFormat: ArchiveFormat = format == "binary" ? .binary : .xml
        operationBody = { _ = try KeyedArchiver.archivedData(graph, registry: Fleet.registry, format: archiveFormat) }
    case ("ours", "parse"):
        // The first stage of a decode alone: the archive's bytes to the property-list value tree.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: inputPath(directory, "ours", format))))
        operationBody = { _ = try PropertyListCodec.decode(bytes) }
    case ("fplain", "encode"), ("fidentity", "encode"):
        FPilot.identityContainers = side == "fidentity"
        let graph = FPilot.make(pilots: pilotCount)
        keep = graph
        let plistFormat: PropertyListSerialization.PropertyListFormat = format == "binary" ? .binary : .xml
        operationBody = { _ = foundationEncode(graph, format: plistFormat) }
    case ("foundation", "decode"):
        let data = try Data(contentsOf: URL(fileURLWithPath: inputPath(directory, "foundation", format)))
        operationBody = { _ = try foundationDecode(data) }
    default:
        throw CocoaError(.featureUnsupported)
    }
    // The child keeps freed memory between runs (`steadyHeapEnvironment`); what setup freed is
    // handed back here, so that the first run's peak counts the memory it needs, as before.
    releaseFreeHeapMemory()
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let baseline = processStatusBytes("VmRSS:")
    var bestWall = Double.infinity, bestCPU = Double.infinity
    func timed() throws {
        let wallStart = now(), cpuStart = threadCPUTime()
        try operationBody()
        bestCPU = min(bestCPU, threadCPUTime() - cpuStart)
        bestWall = min(bestWall, now() - wallStart)
    }
    let start = now()
    try timed()
    let peak = max(0, processStatusBytes("VmHWM:") - baseline)
    var done = 1
    while done < runs, now() - start < budget {
        try timed()
        done += 1
    }
    withExtendedLifetime(keep) {}
    print(bestWall, bestCPU, peak, done)
}

/// Writes both sides' archives of the fleet (Foundation's through the identity variant: the
/// same archive, made without the quadratic map) and prints object counts and sizes.
func prepare(pilotCount: Int, directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let ours = Fleet.make(pilots: pilotCount)
    var report: [String] = []
    for format in ["binary", "xml"] {
        let bytes = try ourEncode(ours, format: format == "binary" ? .binary : .xml)
        try Data(bytes).write(to: URL(fileURLWithPath: inputPath(directory, "ours", format)))
        let graph = try ArchiveGraph(bytes: bytes)
        report.append("\(graph.objects.count) \(bytes.count)")
    }
    FPilot.identityContainers = true
    let theirs = FPilot.make(pilots: pilotCount)
    for format in ["binary", "xml"] {
        let data = foundationEncode(theirs, format: format == "binary" ? .binary : .xml)
        try data.write(to: URL(fileURLWithPath: inputPath(directory, "foundation", format)))
        let graph = try ArchiveGraph(bytes: [UInt8](data))
        report.append("\(graph.objects.count) \(data.count)")
    }
    print(report.joined(separator: " "))
}

func measure(_ name: String, pilots: Int, directory: String, runs: Int, budget: Double) throws -> Measurement {
    let fields = try runSelf(["--case", name, String(pilots), directory, String(runs), String(budget)], environment: steadyHeapEnvironment)
    guard fields.count == 4, let wall = Double(fields[0]), let cpu = Double(fields[1]), let peak = Int(fields[2]), let done = Int(fields[3]) else {
        throw CocoaError(.fileReadCorruptFile)
    }
    return Measurement(wall: wall, cpu: cpu, peakBytes: peak, runs: done)
}

func best(_ measurements: [Measurement]) -> Measurement {
    var result = measurements[0]
    for other in measurements.dropFirst() {
        result.wall = min(result.wall, other.wall)
        result.cpu = min(result.cpu, other.cpu)
        result.peakBytes = min(result.peakBytes, other.peakBytes)
        result.runs += other.runs
    }
    return result
}

let arguments = CommandLine.arguments
if arguments.count == 7, arguments[1] == "--case", let count = Int(arguments[3]), let runs = Int(arguments[5]), let budget = Double(arguments[6]) {
    try runCase(arguments[2], pilotCount: count, directory: arguments[4], runs: runs, budget: budget)
    exit(0)
}
if arguments.count == 4, arguments[1] == "--prepare", let count = Int(arguments[2]) {
    try prepare(pilotCount: count, directory: arguments[3])
    exit(0)
}
// `--profile encode-binary|encode-xml|decode-binary|decode-binary-data|decode-xml|build OBJECTS`: one operation of ours, for callgrind.
if arguments.count == 4, arguments[1] == "--profile", let objects = Int(arguments[3]) {
    let count = pilots(forObjects: objects)
    let graph = Fleet.make(pilots: count)
    switch arguments[2] {
    case "encode-binary": _ = try ourEncode(graph, format: .binary)
    case "encode-xml": _ = try ourEncode(graph, format: .xml)
    case "decode-binary": _ = try ourDecode(try ourEncode(graph, format: .binary))
    case "decode-binary-data":
        _ = try KeyedUnarchiver.unarchive([Pilot].self, from: Data(try ourEncode(graph, format: .binary)), registry: Fleet.registry)
    case "decode-xml": _ = try ourDecode(try ourEncode(graph, format: .xml))
    default: _ = Fleet.make(pilots: count)
    }
    exit(0)
}

// `--memory OBJECTS`: resident memory around one binary decode (issue 31): before, with the
// decoded graph alive, after the unarchiver is gone, after the heap's free memory is handed
// back, and after the graph is gone too. Release builds only; figures in Docs/Performance.md.
if arguments.count == 3, arguments[1] == "--memory", let objects = Int(arguments[2]) {
    func line(_ stage: String) { print("\(stage): \(processStatusBytes("VmRSS:") >> 20) MiB (peak \(processStatusBytes("VmHWM:") >> 20) MiB)") }
    let bytes = try ourEncode(Fleet.make(pilots: pilots(forObjects: objects)), format: .binary)
    releaseFreeHeapMemory()
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    print("archive: \(bytes.count >> 10) KiB")
    line("before the decode")
    var decoded: [Pilot]? = try ourDecode(bytes)
    line("graph decoded, unarchiver released")
    releaseFreeHeapMemory()
    line("after malloc_trim")
    print("pilots: \(decoded?.count ?? 0)")
    decoded = nil
    line("graph released")
    releaseFreeHeapMemory()
    line("graph released, after malloc_trim")
    exit(0)
}

// `--diff OBJECTS`: `keyedarchive diff`'s work (both archives read, the graphs compared) on the
// fleet against a copy with one pilot renamed, binary against binary and binary against XML
// (issue 23: a 3.7 MB archive against a changed copy in well under a second).
if arguments.count == 3, arguments[1] == "--diff", let objects = Int(arguments[2]) {
    let fleet = Fleet.make(pilots: pilots(forObjects: objects))
    let original = try ourEncode(fleet, format: .binary)
    let originalXML = try ourEncode(fleet, format: .xml)
    if let middle = fleet.indices.last.map({ $0 / 2 }) { fleet[middle].name += " (renamed)" }
    let changed = try ourEncode(fleet, format: .binary)
    for (name, a, b) in [("binary vs binary", original, changed), ("xml vs binary", originalXML, changed)] {
        var bestCPU = Double.infinity
        var found = 0
        for _ in 0..<5 {
            let start = threadCPUTime()
            let diff = ArchiveDiff(try ArchiveGraph(bytes: a), try ArchiveGraph(bytes: b))
            bestCPU = min(bestCPU, threadCPUTime() - start)
            found = diff.differences.count
        }
        print("diff \(name): \(a.count) and \(b.count) bytes, \(found) difference(s), best of 5: \(String(format: "%.1f", bestCPU * 1000)) ms CPU")
        if let first = try? ArchiveDiff(ArchiveGraph(bytes: a), ArchiveGraph(bytes: b)).differences.first { print("  \(first)") }
    }
    exit(0)
}

// `--compat FOLDER [COPIES,…]`: `keyedarchive compat`'s work on a folder against itself (issue 33:
// the whole Apple corpus in seconds, linear in the inputs): the files read once, then, for each
// number of copies of them, both sides' schemas inferred from the graphs and compared. Peak is
// VmHWM over the process's size once the files are read, for the largest number of copies.
if arguments.count >= 3, arguments[1] == "--compat" {
    let folder = arguments[2]
    let copies = arguments.count > 3 ? arguments[3].split(separator: ",").compactMap { Int($0) } : [1, 2, 4]
    let loaded = try ArchiveSchemaSource.load(path: folder)
    var files: [(name: String, bytes: [UInt8])] = []
    for archive in loaded.archives {
        files.append((archive.name, [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive.name)))))
    }
    let bytes = files.reduce(0) { $0 + $1.bytes.count }
    let baseline = processStatusBytes("VmRSS:")
    for count in copies {
        let inputs = Array(Array(repeating: files, count: count).joined())
        var bestRead = Double.infinity, bestCompare = Double.infinity, changes = 0
        for _ in 0..<5 {
            let start = threadCPUTime()
            let old = try ArchiveSchemaSource(name: folder, files: inputs)
            let new = try ArchiveSchemaSource(name: folder, files: inputs)
            let read = threadCPUTime()
            // Both sides kept alive past the clock: freeing their graphs is not the comparison.
            let (compatibility, end) = withExtendedLifetime((old, new)) { (ArchiveCompatibility(old: old, new: new), threadCPUTime()) }
            bestRead = min(bestRead, read - start)
            bestCompare = min(bestCompare, end - read)
            changes = compatibility.changes.count
        }
        print("compat \(folder) ×\(count): \(inputs.count) archives a side, \(bytes * count) bytes a side, \(changes) changes; best of 5: "
              + "\(String(format: "%.1f", (bestRead + bestCompare) * 1000)) ms CPU (both sides read and inferred \(String(format: "%.1f", bestRead * 1000)) ms, "
              + "compared \(String(format: "%.2f", bestCompare * 1000)) ms)")
    }
    print("peak growth: \(String(format: "%.1f", Double(processStatusBytes("VmHWM:") - baseline) / 1e6)) MB over \(String(format: "%.1f", Double(baseline) / 1e6)) MB")
    exit(0)
}

// `--entry-points OBJECTS[,OBJECTS…]`: the peak memory of the library's entry points for large
// archives (`ArchiveGraph(data:)`, `KeyedUnarchiver.unarchive(_:from: Data, …)`,
// `KeyedArchiver.archivedData`), each in a child of its own, against the archive's size.
if arguments.count == 3, arguments[1] == "--entry-points" {
    print("| objects | format | entry point | archive | peak (growth of VmHWM) | peak / archive | CPU |")
    print("|---|---|---|---|---|---|---|")
    for objects in arguments[2].split(separator: ",").compactMap({ Int($0) }) {
        let count = pilots(forObjects: objects)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-entry-points-\(getpid())-\(objects)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let prepared = try runSelf(["--prepare", String(count), directory]).compactMap { Int($0) }
        guard prepared.count == 8 else { throw CocoaError(.fileReadCorruptFile) }
        for format in ["binary", "xml"] {
            let size = format == "binary" ? prepared[1] : prepared[3]
            for (operation, label) in [("graphdata", "ArchiveGraph(data:)"), ("decodedata", "KeyedUnarchiver.unarchive(_:from: Data)"), ("archiveddata", "KeyedArchiver.archivedData")] {
                let fields = try runSelf(["--case", "ours-\(operation)-\(format)", String(count), directory, "1", "1"], environment: steadyHeapEnvironment)
                guard fields.count == 4, let cpu = Double(fields[1]), let peak = Int(fields[2]) else { throw CocoaError(.fileReadCorruptFile) }
                print("| \(prepared[0]) | \(format) | \(label) | \(String(format: "%.1f MB", Double(size) / 1e6)) | \(String(format: "%.1f MB", Double(peak) / 1e6)) | \(String(format: "%.2f×", Double(peak) / Double(size))) | \(String(format: "%.0f ms", cpu * 1000)) |")
                fflush(nil)
            }
        }
    }
    exit(0)
}

var sizes = [10_000, 100_000, 1_000_000]
if let index = arguments.firstIndex(of: "--sizes"), index + 1 < arguments.count {
    sizes = arguments[index + 1].split(separator: ",").compactMap { Int($0) }
}
let foundationLimit = 100_000
/// Foundation's plain containers encode in quadratic time (10 s of CPU for 10k objects here,
/// so some 15 minutes for 100k): measured at the first size only, unless `--plain-limit N`.
var plainLimit = sizes.first ?? 10_000
if let index = arguments.firstIndex(of: "--plain-limit"), index + 1 < arguments.count, let limit = Int(arguments[index + 1]) {
    plainLimit = limit
}
/// Up to 20 runs per child within 15 s: a case of a few milliseconds gets enough runs for its best
/// to be steady on a shared machine (five runs left the 10k rows ±40 %), while Foundation's
/// multi-second cases stop at the budget as before. Both sides get the same rule.
let runs = 20
let budget = 15.0

func ms(_ seconds: Double) -> String { String(format: seconds < 0.1 ? "%.2f ms" : "%.0f ms", seconds * 1000) }
func timeCell(_ measurement: Measurement) -> String { "\(ms(measurement.cpu)) (\(ms(measurement.wall)))" }
func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
func kb(_ bytes: Int) -> String { String(format: "%.0f KB", Double(bytes) / 1e3) }
func ratio(_ value: Double) -> String { String(format: value >= 100 ? "%.0f×" : "%.1f×", value) }

print("Fleet benchmark: KeyedArchiver/KeyedUnarchiver vs Foundation NSKeyedArchiver/NSKeyedUnarchiver, release build.")
print("Fleet: pilots × \(FleetShape.ownedPerPilot + 1) airplanes (the fifth is the next pilot's: 20% shared references), owner")
print("back-references encoded conditionally, optional license date, 2 notes. Time: thread CPU time, best of the runs")
print("(wall in brackets). Each case in its own child process: a timed warm-up, then up to \(runs - 1) more runs within")
print("\(Int(budget)) s; per row the children run interleaved: ours, Foundation plain, Foundation identity-hashed, ours;")
print("each side's best counts. Peak: growth of VmHWM during the first run. Ratios against the faster Foundation variant.")
print("Foundation decodes one archive (plain and identity variants write the same classes and keys) and skips owners.")
print("")

struct Row { var size: Int; var format: String; var operation: String; var ours: Measurement; var plain: Measurement?; var identity: Measurement? }
var rows: [Row] = []
var builds: [Int: Measurement] = [:]
/// The property-list stage of each decode, by size and format.
var parses: [String: Measurement] = [:]
var counts: [Int: (ours: Int, oursPilots: Int)] = [:]
print("| objects | format | operation | ours | ours/object | ours peak | Foundation plain | Foundation identity | Foundation peak | speed-up |")
print("|---|---|---|---|---|---|---|---|---|---|")
for size in sizes {
    let count = pilots(forObjects: size)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-benchmark-\(getpid())-\(size)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let withFoundation = size <= foundationLimit
    let prepared = try runSelf(["--prepare", String(count), directory]).compactMap { Int($0) }
    guard prepared.count == 8 else { throw CocoaError(.fileReadCorruptFile) }
    let objects = prepared[0]
    counts[size] = (objects, count)
    let sizeLine = "archive sizes, \(count) pilots: ours \(prepared[0]) objects, binary \(kb(prepared[1])), XML \(kb(prepared[3])); Foundation \(prepared[4]) objects, binary \(kb(prepared[5])), XML \(kb(prepared[7]))"
    let build = best(try (0..<2).map { _ in try measure("ours-build-none", pilots: count, directory: directory, runs: runs, budget: budget) })
    builds[size] = build
    for format in ["binary", "xml"] {
        for operation in ["encode", "decode"] {
            let first = try measure("ours-\(operation)-\(format)", pilots: count, directory: directory, runs: runs, budget: budget)
            var plain: Measurement?, identity: Measurement?
            if withFoundation {
                if operation == "encode" {
                    if size <= plainLimit {
                        plain = try measure("fplain-encode-\(format)", pilots: count, directory: directory, runs: runs, budget: budget)
                    }
                    identity = try measure("fidentity-encode-\(format)", pilots: count, directory: directory, runs: runs, budget: budget)
                } else {
                    plain = try measure("foundation-decode-\(format)", pilots: count, directory: directory, runs: runs, budget: budget)
                }
            }
            let second = try measure("ours-\(operation)-\(format)", pilots: count, directory: directory, runs: runs, budget: budget)
            let ours = best([first, second])
            if operation == "decode" {
                parses["\(size) \(format)"] = best(try (0..<2).map { _ in try measure("ours-parse-\(format)", pilots: count, directory: directory, runs: runs, budget: budget) })
            }
            rows.append(Row(size: size, format: format, operation: operation, ours: ours, plain: plain, identity: identity))
            let perObject = String(format: "%.0f ns", ours.cpu / Double(objects) * 1e9)
            var theirsCells = ["–", "–", "–", "–"]
            let candidates = [plain, identity].compactMap { $0 }
            if let faster = candidates.min(by: { $0.cpu < $1.cpu }) {
                let plainCell = plain.map(timeCell) ?? "not run (quadratic)"
                let identityCell = identity.map(timeCell) ?? (operation == "decode" ? "(one archive)" : "–")
                theirsCells = [plainCell, identityCell, mb(faster.peakBytes), ratio(faster.cpu / ours.cpu)]
            }
            print("| \(objects) | \(format) | \(operation) | \(timeCell(ours)) | \(perObject) | \(mb(ours.peakBytes)) | \(theirsCells.joined(separator: " | ")) |")
            fflush(nil)
        }
    }
    print("| \(objects) | – | build in memory | \(timeCell(build)) | \(String(format: "%.0f ns", build.cpu / Double(objects) * 1e9)) | \(mb(build.peakBytes)) | – | – | – | – |")
    print("<!-- \(sizeLine) -->")
    fflush(nil)
}
print("")
print("Decode vs build in memory (ours, CPU):")
for row in rows where row.operation == "decode" {
    if let build = builds[row.size] {
        print("- \(row.size) objects, \(row.format): decode \(ms(row.ours.cpu)), build \(ms(build.cpu)): \(String(format: "%.2f×", row.ours.cpu / build.cpu))")
    }
}
print("")
print("The value-tree stage (bytes to the PropertyListValue tree, before any archive work): where an XML decode")
print("starts; a binary decode reads its bytes in place and skips it. Beside it, the time a decode may take for 50×")
print("(Foundation's decode / 50):")
for row in rows where row.operation == "decode" {
    guard let parse = parses["\(row.size) \(row.format)"] else { continue }
    let budgetCell = row.plain.map { "; 50× budget \(ms($0.cpu / 50)), parse alone \(String(format: "%.0f %%", 100 * parse.cpu / ($0.cpu / 50))) of it" } ?? ""
    print("- \(row.size) objects, \(row.format): parse \(ms(parse.cpu)) of decode \(ms(row.ours.cpu)) (\(String(format: "%.0f %%", 100 * parse.cpu / row.ours.cpu)))\(budgetCell)")
}
if let small = sizes.first, let large = sizes.last, small != large, let smallCount = counts[small], let largeCount = counts[large] {
    print("")
    print("Linear scaling (time per object at \(large) / at \(small)):")
    for row in rows where row.size == large {
        if let base = rows.first(where: { $0.size == small && $0.format == row.format && $0.operation == row.operation }) {
            let perLarge = row.ours.cpu / Double(largeCount.ours), perSmall = base.ours.cpu / Double(smallCount.ours)
            print("- \(row.format) \(row.operation): \(String(format: "%.0f ns / %.0f ns = %.2f×", perLarge * 1e9, perSmall * 1e9, perLarge / perSmall))")
        }
    }
}
