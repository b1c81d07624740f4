// libFuzzer target `archive`: the generic keyed-archive view and its renderers. Built by
// FuzzTesting/run.sh with FuzzSupport.swift, FuzzArchiveSupport.swift and the PropertyList and
// KeyedArchive sources, as one module.
//
// For every input, `ArchiveGraph(bytes:options:)`
//   - fails with an ArchiveError of a structural code (never a trap): `invalidPropertyList`
//     exactly when the property-list codec refuses the bytes, carrying that same located
//     PropertyListError; a reference, class-reference or class-descriptor fault names the
//     object's UID (inside `$objects`) or the `$top` key; or
//   - succeeds, and agrees with `ArchiveGraph(propertyList:)` on the codec's value.
// The binary table typed decoding reads in place (`BinaryArchiveTable`) accepts only inputs the
// graph accepts, and shows typed decoding the same `$top` and the same objects.
// For every graph it accepts:
//   - header: `$archiver` NSKeyedArchiver, `$version` 100000, `$objects[0]` is `$null`;
//   - every reference (in `$top`, in every object, through `references(of:)` and
//     `references(in:)`) is inside `$objects`; `object(_:)` is nil exactly past the end;
//     every instance's class UID names a class descriptor whose name `className(of:)` gives,
//     and its class UID is among its references; plain values refer to nothing;
//   - the dump and the JSON (under an expansion budget) either both fail with `budgetExceeded`
//     — they count the same nodes by contract — or both succeed, deterministically; the JSON is
//     strict RFC 8259; each object is expanded at most once (`{"$id": n` occurs once per n, so
//     the output is linear in the archive whatever its sharing), every `{"$ref": n}` points back
//     to an object already expanded, and the objects expanded are exactly those reachable from
//     `$top` through references (less `$null` and class descriptors reached only as `$class`).
// Any crash, sanitizer report, leak, timeout, out-of-memory or failed check is a finding
// (Docs/Development/Fuzzing.md; inputs kept in Fixtures/fuzz-findings/).

@_cdecl("LLVMFuzzerTestOneInput")
public func archiveGraphFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let options = FuzzArchiveOptions.reading

    let parsed = Result { () throws(ArchiveError) in try ArchiveGraph(bytes: bytes, options: options) }
    let plist = Result { () throws(PropertyListError) in try PropertyListCodec.decode(bytes, options: options.propertyList) }
    if let table = BinaryArchiveTable.read(bytes, options: options) {
        guard case .success(let graph) = parsed else { fuzzFinding("the binary table accepted bytes the graph refuses: \(parsed)") }
        FuzzArchiveChecks.checkTableAgrees(table, graph)
    }

    switch (parsed, plist) {
    case (.failure(let error), .failure(let plistError)):
        guard error.code == .invalidPropertyList, let carried = error.propertyListError else {
            fuzzFinding("ArchiveGraph failed with \(error) where the codec refused the bytes with \(plistError)")
        }
        guard carried == plistError, carried.location == plistError.location else {
            fuzzFinding("ArchiveGraph carries \(carried), the codec says \(plistError)")
        }
        FuzzArchiveChecks.checkPropertyListLocation(carried, size: size)
        return 0
    case (.success, .failure(let plistError)):
        fuzzFinding("ArchiveGraph accepted bytes the codec refuses: \(plistError)")
    case (.failure(let error), .success(let value)):
        guard error.code != .invalidPropertyList else { fuzzFinding("ArchiveGraph says invalidPropertyList, the codec read the bytes: \(error)") }
        FuzzArchiveChecks.checkGraphError(error, propertyList: value)
        switch Result(catching: { () throws(ArchiveError) in try ArchiveGraph(propertyList: value, options: options) }) {
        case .success: fuzzFinding("ArchiveGraph(propertyList:) accepted what ArchiveGraph(bytes:) refused with \(error)")
        case .failure(let again): guard again == error, again.message == error.message else { fuzzFinding("ArchiveGraph entry points disagree: \(error) vs \(again)") }
        }
        return 0
    case (.success(let graph), .success(let value)):
        guard (try? ArchiveGraph(propertyList: value, options: options)) == graph else {
            fuzzFinding("ArchiveGraph(propertyList:) disagrees with ArchiveGraph(bytes:)")
        }
        FuzzArchiveChecks.checkGraph(graph)
        FuzzArchiveChecks.checkRenderings(graph, budget: options.maximumExpansionCount)
        return 0
    }
}
