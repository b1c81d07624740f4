import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The allowlist policies beyond Apple's: the opt-in class fallback, the primitive policy,
/// refusals that say what would admit an object, the archive budgets (each just below and just
/// above its limit) and the name-only allowlist behind `keyedarchive validate`. Archives are
/// built as property lists by hand, so what they contain does not depend on our encoder.
@Suite struct SecurityPolicyTests {
    static func archive(_ objects: [PropertyListValue], top: PropertyListDictionary = ["root": .uid(PropertyListUID(1))]) throws -> [UInt8] {
        let value: PropertyListValue = [
            "$archiver": "NSKeyedArchiver",
            "$version": 100000,
            "$top": .dictionary(top),
            "$objects": .array(objects),
        ]
        return try BinaryPropertyListWriter().write(value)
    }

    static func uid(_ value: UInt64) -> PropertyListValue { .uid(PropertyListUID(value)) }

    static func classDictionary(_ chain: [String]) -> PropertyListValue {
        ["$classname": .string(chain[0]), "$classes": .array(chain.map { .string($0) })]
    }

    /// An airplane whose archived class is `className` with the `$classes` chain `chain`.
    static func airplane(className chain: [String]) throws -> [UInt8] {
        try archive([
            "$null",
            ["$class": uid(2), "model": uid(3), "registrationNumber": uid(4), "airframeHours": 1200, "aerotowLaunchCount": 3, "winchLaunchCount": 4],
            classDictionary(chain),
            "ASK 21",
            "D-8721",
        ])
    }

    static func error(_ body: () throws(ArchiveError) -> Void) -> ArchiveError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    // MARK: Class fallback

    @Test func fallbackIsOffByDefaultAndNamesTheRegistrationThatWouldAdmit() throws {
        let bytes = try Self.airplane(className: ["MyAppV2.Glider", "Glider", "Airplane", "NSObject"])
        #expect(Fleet.registry.classFallback == .refuse)
        let refused = Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Airplane.self, from: bytes, registry: Fleet.registry) }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.uid == PropertyListUID(1))
        #expect(refused?.keyPath.description == "root")
        #expect(refused?.classChain == ["MyAppV2.Glider", "Glider", "Airplane", "NSObject"])
        #expect(refused?.remedy?.contains("className: \"MyAppV2.Glider\", superclass: Airplane.self") == true, "\(refused?.remedy ?? "no remedy")")
        #expect(refused?.description.contains("MyAppV2.Glider < Glider < Airplane < NSObject") == true)
    }

    /// A build that archived the models under their module's names (`AppModelsV1.Pilot`, as
    /// NSKeyedArchiver names a Swift class of the module `AppModelsV1`, where `Pilot` is
    /// registered): each refusal's remedy is an alias on that class's registration, written out
    /// whole, not a new type under `superclass:`; the registry the remedies give decodes the
    /// archive. (A name whose chain names the registered class after it is of a subclass, and
    /// keeps the subclass remedy: `fallbackIsOffByDefaultAndNamesTheRegistrationThatWouldAdmit`.)
    @Test func moduleQualifiedNameOfARegisteredClassGetsAnAliasRemedy() throws {
        var writing = ArchiveRegistry()
        writing.register(Airplane.self, className: "AppModelsV1.Airplane")
        writing.register(PoweredAirplane.self, className: "AppModelsV1.PoweredAirplane", superclass: Airplane.self)
        writing.register(Glider.self, className: "AppModelsV1.Glider", superclass: Airplane.self)
        writing.register(Pilot.self, className: "AppModelsV1.Pilot")
        let bytes = try KeyedArchiver.archive(Fleet.makePilots(), registry: writing)
        #expect(try ArchiveGraph(bytes: bytes).objects.contains {
            if case .classDescriptor(let d) = $0 { return d.classes == ["AppModelsV1.PoweredAirplane", "AppModelsV1.Airplane", "NSObject"] } else { return false }
        })
        func refusal(_ registry: ArchiveRegistry) -> ArchiveError? {
            do {
                _ = try KeyedUnarchiver.unarchive([Pilot].self, from: bytes, registry: registry)
                return nil
            } catch {
                return error
            }
        }
        let pilot = try #require(refusal(Fleet.registry))
        #expect(pilot.code == .classNotAllowed)
        #expect(pilot.keyPath.description == "root[0]")
        #expect(pilot.remedy == "registry.register(Pilot.self, aliases: [\"AppModelsV1.Pilot\"]) in place of its registration — only if that class really is Pilot, archived under its module's name")
        #expect(pilot.description.contains("superclass:") == false, "\(pilot)")

        var registry = ArchiveRegistry()
        registry.register(Airplane.self)
        registry.register(PoweredAirplane.self, superclass: Airplane.self)
        registry.register(Glider.self, superclass: Airplane.self)
        registry.register(Pilot.self, aliases: ["AppModelsV1.Pilot"])
        let cub = try #require(refusal(registry))
        #expect(cub.keyPath.description == "root[0].airplanes[0]")
        #expect(cub.remedy == "registry.register(PoweredAirplane.self, aliases: [\"AppModelsV1.PoweredAirplane\"], superclass: Airplane.self) in place of its registration — only if that class really is PoweredAirplane, archived under its module's name")

        // Registered under another module's name (and with an alias already): the same last part.
        var moved = ArchiveRegistry()
        moved.register(Pilot.self, className: "FleetApp.Pilot", aliases: ["OldPilot"])
        #expect(refusal(moved)?.remedy == "registry.register(Pilot.self, className: \"FleetApp.Pilot\", aliases: [\"OldPilot\", \"AppModelsV1.Pilot\"]) in place of its registration — only if that class really is Pilot, archived under its module's name")

        var remedied = ArchiveRegistry()
        remedied.register(Airplane.self, aliases: ["AppModelsV1.Airplane"])
        remedied.register(PoweredAirplane.self, aliases: ["AppModelsV1.PoweredAirplane"], superclass: Airplane.self)
        remedied.register(Glider.self, aliases: ["AppModelsV1.Glider"], superclass: Airplane.self)
        remedied.register(Pilot.self, aliases: ["AppModelsV1.Pilot"])
        let pilots = try KeyedUnarchiver.unarchive([Pilot].self, from: bytes, registry: remedied)
        #expect(pilots.map(\.name) == ["Amelia", "Bessie"])
        #expect(pilots.first?.airplanes.map { String(describing: type(of: $0)) } == ["PoweredAirplane", "Glider"])
    }

    @Test func fallbackDecodesTheNearestRegisteredAdmittedAncestor() throws {
        var registry = Fleet.registry
        registry.classFallback = .nearestRegisteredAncestor
        let glider = try KeyedUnarchiver.unarchive(Airplane.self, from: try Self.airplane(className: ["MyAppV2.Glider", "Glider", "Airplane", "NSObject"]), registry: registry)
        // Glider's own initializer ran.
        #expect(type(of: glider) == Glider.self)
        #expect((glider as? Glider)?.winchLaunchCount == 4)
        #expect(glider.registrationNumber == "D-8721")
        // The nearest *admitted* one: Pilot is registered but is not a kind of Airplane, so the
        // walk goes on to Airplane.
        let plain = try KeyedUnarchiver.unarchive(Airplane.self, from: try Self.airplane(className: ["Odd", "Pilot", "Airplane", "NSObject"]), registry: registry)
        #expect(type(of: plain) == Airplane.self)
    }

    @Test func fallbackNeverAdmitsWhatTheRegistryWouldNot() throws {
        var registry = Fleet.registry
        registry.classFallback = .nearestRegisteredAncestor
        // No registered, admitted name anywhere in the chain.
        let unknown = try Self.airplane(className: ["Evil", "NSProxy", "NSObject"])
        #expect(Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Airplane.self, from: unknown, registry: registry) }?.code == .classNotAllowed)
        // A registered class name is never re-read through its chain: Pilot claiming to be an
        // Airplane stays a Pilot, and a Pilot is not admitted for Airplane.
        let pilot = try Self.airplane(className: ["Pilot", "Airplane", "NSObject"])
        let refused = Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Airplane.self, from: pilot, registry: registry) }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.remedy?.hasPrefix("none for Airplane") == true)
        // Asked for as a Pilot, a glider-claiming unknown class is not admitted either.
        let claimsGlider = try Self.airplane(className: ["MyAppV2.Glider", "Glider", "Airplane", "NSObject"])
        #expect(Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Pilot.self, from: claimsGlider, registry: registry) }?.code == .classNotAllowed)
    }

    @Test func fallbackAppliesToFoundationClassesToo() throws {
        let bytes = try Self.archive([
            "$null",
            ["$class": Self.uid(2), "NS.objects": [Self.uid(3)]],
            Self.classDictionary(["MyArray", "NSArray", "NSObject"]),
            "element",
        ])
        let refused = Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry()) }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.remedy?.hasPrefix("registry.addAlias(\"MyArray\", for: .array)") == true, "\(refused?.remedy ?? "no remedy")")
        var registry = ArchiveRegistry()
        registry.classFallback = .nearestRegisteredAncestor
        #expect(try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: registry) == ["element"])
    }

    // MARK: Primitive policy

    @Test func primitivePolicyAdmitsPlainValuesByKind() throws {
        // An NSArray holding a plain string, a plain integer and a plain real.
        let bytes = try Self.archive([
            "$null",
            ["$class": Self.uid(2), "NS.objects": [Self.uid(3)]],
            Self.classDictionary(["NSArray", "NSObject"]),
            "text",
        ])
        #expect(try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry()) == ["text"])
        var noStrings = ArchiveRegistry()
        noStrings.primitives.remove(.strings)
        let refused = Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: noStrings) }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.uid == PropertyListUID(3))
        #expect(refused?.keyPath.description == "root[0]")
        #expect(refused?.remedy == "registry.primitives.insert(.strings)")

        let numbers = try Self.archive([
            "$null",
            ["$class": Self.uid(2), "NS.objects": [Self.uid(3), Self.uid(4)]],
            Self.classDictionary(["NSArray", "NSObject"]),
            7,
            2.5,
        ])
        #expect(try KeyedUnarchiver.unarchive([Double].self, from: numbers, registry: ArchiveRegistry()) == [7, 2.5])
        var noReals = ArchiveRegistry()
        noReals.primitives = [.integers]
        let realRefused = Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([Double].self, from: numbers, registry: noReals) }
        #expect(realRefused?.code == .classNotAllowed)
        #expect(realRefused?.uid == PropertyListUID(4))
        var none = ArchiveRegistry()
        none.primitives = []
        #expect(Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([Double].self, from: numbers, registry: none) }?.uid == PropertyListUID(3))
    }

    @Test func aPlainValueNeverStandsInForAnObject() throws {
        // root is a plain string: not a model, not a collection, not a date.
        let bytes = try Self.archive(["$null", "Glider"])
        #expect(Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Airplane.self, from: bytes, registry: Fleet.registry) }?.code == .typeMismatch)
        #expect(Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry()) }?.code == .typeMismatch)
        #expect(Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Date.self, from: bytes, registry: ArchiveRegistry()) }?.code == .typeMismatch)
    }

    // MARK: Budgets, each just below and just above its limit

    /// `count` plain strings in an NSArray: decoding `[String]` follows 1 + count references.
    static func stringArray(count: Int, length: Int = 3) throws -> [UInt8] {
        var objects: [PropertyListValue] = ["$null", ["$class": uid(2), "NS.objects": .array((0..<count).map { uid(UInt64($0 + 3)) })], classDictionary(["NSArray", "NSObject"])]
        for index in 0..<count { objects.append(.string(String(repeating: "x", count: length - 1) + "\(index % 10)")) }
        return try archive(objects)
    }

    @Test func visitBudget() throws {
        let bytes = try Self.stringArray(count: 5)
        var options = ArchiveReadingOptions()
        options.maximumVisitCount = 6
        #expect(try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry(), options: options).count == 5)
        options.maximumVisitCount = 5
        let refused = Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry(), options: options) }
        #expect(refused?.code == .budgetExceeded)
        #expect(refused?.uid == PropertyListUID(7))
        #expect(refused?.keyPath.description == "root[4]")
    }

    @Test func visitBudgetBoundsSharedReferences() throws {
        // One string referenced 1000 times: each reference is a visit (and a class check).
        let bytes = try Self.archive([
            "$null",
            ["$class": Self.uid(2), "NS.objects": .array(Array(repeating: Self.uid(3), count: 1000))],
            Self.classDictionary(["NSArray", "NSObject"]),
            "shared",
        ])
        var options = ArchiveReadingOptions()
        options.maximumVisitCount = 1001
        #expect(try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry(), options: options).count == 1000)
        options.maximumVisitCount = 1000
        #expect(Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry(), options: options) }?.code == .budgetExceeded)
    }

    @Test func objectCountAndElementBudgets() throws {
        // 5 strings: $null, the array, its class dictionary and the strings = 8 $objects
        // entries; decoding [String] produces 5 elements.
        let bytes = try Self.stringArray(count: 5)
        var options = ArchiveReadingOptions()
        options.maximumObjectCount = 8
        #expect(try ArchiveGraph(bytes: bytes, options: options).objects.count == 8)
        options.maximumObjectCount = 7
        #expect(Self.error { () throws(ArchiveError) in _ = try ArchiveGraph(bytes: bytes, options: options) }?.code == .budgetExceeded)

        options = ArchiveReadingOptions()
        options.maximumTotalElementCount = 5
        #expect(try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry(), options: options).count == 5)
        options.maximumTotalElementCount = 4
        let refused = Self.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry(), options: options) }
        #expect(refused?.code == .budgetExceeded)
        #expect(refused?.uid == PropertyListUID(1))
    }

    @Test func valueByteBudget() throws {
        let bytes = try Self.stringArray(count: 2, length: 100)
        var options = ArchiveReadingOptions()
        options.maximumValueByteCount = 100
        #expect(try ArchiveGraph(bytes: bytes, options: options).objects.count == 5)
        options.maximumValueByteCount = 99
        let refused = Self.error { () throws(ArchiveError) in _ = try ArchiveGraph(bytes: bytes, options: options) }
        #expect(refused?.code == .budgetExceeded)
        #expect(refused?.uid == PropertyListUID(3))

        // Inline data in an object's fields (encodeBytes:length:forKey:) and class names count too.
        let inline = try Self.archive([
            "$null",
            ["$class": Self.uid(2), "bytes": .data([UInt8](repeating: 7, count: 50))],
            Self.classDictionary(["Blob", "NSObject"]),
        ])
        options.maximumValueByteCount = 50
        #expect(throws: Never.self) { try ArchiveGraph(bytes: inline, options: options) }
        options.maximumValueByteCount = 49
        #expect(Self.error { () throws(ArchiveError) in _ = try ArchiveGraph(bytes: inline, options: options) }?.uid == PropertyListUID(1))
        options.maximumValueByteCount = 3
        #expect(Self.error { () throws(ArchiveError) in _ = try ArchiveGraph(bytes: inline, options: options) }?.code == .budgetExceeded)
    }

    @Test func classChainBudget() throws {
        let bytes = try Self.airplane(className: ["Glider", "Airplane", "NSObject"])
        var options = ArchiveReadingOptions()
        options.maximumClassChainLength = 3
        #expect(try KeyedUnarchiver(bytes: bytes, registry: Fleet.registry, options: options).decode(Airplane.self) is Glider)
        options.maximumClassChainLength = 2
        let refused = Self.error { () throws(ArchiveError) in _ = try ArchiveGraph(bytes: bytes, options: options) }
        #expect(refused?.code == .budgetExceeded)
        #expect(refused?.uid == PropertyListUID(2))
    }

    /// The smallest expansion budget with which `render` finishes, found by bisection.
    static func smallestBudget(_ graph: ArchiveGraph, _ render: Renderer) -> Int {
        var low = 0, high = 1 << 24
        while low + 1 < high {
            let middle = (low + high) / 2
            if (try? render(graph, middle)) != nil { high = middle } else { low = middle }
        }
        return high
    }

    typealias Renderer = (ArchiveGraph, Int) throws(ArchiveError) -> String

    static func checkExpansionBudget(_ render: Renderer, unbudgeted: (ArchiveGraph) -> String) throws {
        let graph = try ArchiveGraph(bytes: try Self.stringArray(count: 10))
        let limit = Self.smallestBudget(graph, render)
        #expect(Self.error { () throws(ArchiveError) in _ = try render(graph, limit - 1) }?.code == .budgetExceeded)
        // Within the budget, the output is exactly the unbudgeted output.
        #expect(try render(graph, limit) == unbudgeted(graph))

        // A reference explosion 64 levels deep (2^64 paths) needs a budget linear in the
        // file: a few nodes per object, nowhere near 2^64.
        let laughs = try ArchiveGraph(propertyList: HostileShapeTests.laughs(levels: 64))
        let laughLimit = Self.smallestBudget(laughs, render)
        #expect(laughLimit < 8 * laughs.objects.count, "\(laughLimit) nodes for \(laughs.objects.count) objects")
        // And linear: twice the levels, about twice the nodes.
        let longer = try ArchiveGraph(propertyList: HostileShapeTests.laughs(levels: 128))
        let longerLimit = Self.smallestBudget(longer, render)
        #expect(longerLimit <= 2 * laughLimit + 8 && longerLimit >= 2 * laughLimit - 8, "\(laughLimit) → \(longerLimit)")
    }

    @Test func expansionBudgetForDumpAndJSON() throws {
        try Self.checkExpansionBudget({ (graph, budget) throws(ArchiveError) in try ArchiveDumper.dump(graph, budget: budget) },
                                      unbudgeted: { ArchiveDumper.dump($0) })
        try Self.checkExpansionBudget({ (graph, budget) throws(ArchiveError) in try ArchiveJSONRenderer.render(graph, budget: budget) },
                                      unbudgeted: { ArchiveJSONRenderer.render($0) })
        // The bytes entry points use maximumExpansionCount.
        var options = ArchiveReadingOptions()
        options.maximumExpansionCount = 5
        let ten = try Self.stringArray(count: 10)
        #expect(Self.error { () throws(ArchiveError) in _ = try ArchiveDumper.dump(ten, options: options) }?.code == .budgetExceeded)
        #expect(Self.error { () throws(ArchiveError) in _ = try ArchiveJSONRenderer.render(ten, options: options) }?.code == .budgetExceeded)
    }

    // MARK: Name-only allowlist (keyedarchive validate)

    /// A registry checks an archive's class names by itself (issue 44: one allowlist, the
    /// registry): the same report as a name list holding its names, Foundation's fixed set
    /// included; a class it does not register is refused where it first hangs, with its chain;
    /// its primitive policy applies.
    @Test func registryChecksClassNamesAsItsAllowlist() throws {
        let graph = try ArchiveGraph(bytes: try KeyedArchiver.archive(Fleet.makePilots(), registry: Fleet.registry))
        let report = Fleet.registry.checkClassNames(of: graph)
        #expect(report.admitsEverything, "\(report.refusals)")
        #expect(report.checkedObjectCount == Self.reachableObjectCount(graph))
        let names = ["Pilot", "Airplane", "Glider", "PoweredAirplane"] + FoundationClassSet.release0_9.classes.flatMap(\.defaultNames)
        #expect(report == ArchiveClassAllowlist(classNames: names).check(graph))

        var noGlider = ArchiveRegistry()
        noGlider.register(Airplane.self)
        noGlider.register(PoweredAirplane.self, superclass: Airplane.self)
        noGlider.register(Pilot.self)
        let refused = noGlider.checkClassNames(of: graph)
        #expect(refused.refusedClassNames == ["Glider"])
        #expect(refused.refusals.first?.keyPath.description == "root[0].airplanes[1]")
        #expect(refused.refusals.first?.classChain == ["Glider", "Airplane", "NSObject"])

        // The registry's primitives: a registry that admits no plain strings refuses the names'.
        var noStrings = Fleet.registry
        noStrings.primitives = []
        #expect(!noStrings.checkClassNames(of: graph).admitsEverything)
        // Only what a registry holds: without NSDate among its Foundation classes, the fleet's dates are refused.
        var plain = ArchiveRegistry(foundationClasses: [.array, .dictionary, .string])
        plain.register(Airplane.self)
        plain.register(PoweredAirplane.self, superclass: Airplane.self)
        plain.register(Glider.self, superclass: Airplane.self)
        plain.register(Pilot.self)
        #expect(Self.holdsClass("NSDate", graph))
        #expect(plain.checkClassNames(of: graph).refusedClassNames == ["NSDate"])
    }

    static func holdsClass(_ name: String, _ graph: ArchiveGraph) -> Bool {
        graph.objects.indices.contains { graph.className(of: PropertyListUID(UInt64($0))) == name }
    }

    @Test func allowlistChecksEveryReachableObjectByExactName() throws {
        let bytes = try KeyedArchiver.archive(Fleet.makePilots(), registry: Fleet.registry)
        let graph = try ArchiveGraph(bytes: bytes)
        let everything = ArchiveClassAllowlist(classNames: ["NSArray", "NSDictionary", "NSDate", "Pilot", "Airplane", "Glider", "PoweredAirplane"])
        let admitted = everything.check(graph)
        #expect(admitted.admitsEverything)
        // Independent count: every object a walk from $top reaches (class dictionaries are
        // reached only through $class, which is not a reference to an object).
        #expect(admitted.checkedObjectCount == Self.reachableObjectCount(graph))

        // Without Glider: the shared glider is refused once, at its first path, with its chain.
        let noGlider = ArchiveClassAllowlist(classNames: ["NSArray", "NSDictionary", "NSDate", "Pilot", "Airplane", "PoweredAirplane"]).check(graph)
        #expect(noGlider.refusalCount == 1)
        let refusal = try #require(noGlider.refusals.first)
        #expect(refusal.code == .classNotAllowed)
        #expect(refusal.keyPath.description == "root[0].airplanes[1]")
        #expect(refusal.classChain == ["Glider", "Airplane", "NSObject"])
        #expect(refusal.remedy == "--allow Glider")
        #expect(graph.className(of: try #require(refusal.uid)) == "Glider")

        // A chain claiming an allowed ancestor admits nothing.
        let claims = try ArchiveGraph(bytes: try Self.airplane(className: ["Evil", "Airplane", "NSObject"]))
        #expect(ArchiveClassAllowlist(classNames: ["Airplane"]).check(claims).refusals.map(\.classChain) == [["Evil", "Airplane", "NSObject"]])
        // Names are compared exactly: a canonically equivalent spelling is another name.
        let composed = try ArchiveGraph(bytes: try Self.airplane(className: ["Caf\u{E9}", "NSObject"]))
        #expect(!ArchiveClassAllowlist(classNames: ["Cafe\u{301}"]).check(composed).admitsEverything)
        #expect(ArchiveClassAllowlist(classNames: ["Caf\u{E9}"]).check(composed).admitsEverything)
    }

    @Test func allowlistPrimitivePolicyAndOddObjects() throws {
        let graph = try ArchiveGraph(bytes: try Self.stringArray(count: 3))
        #expect(ArchiveClassAllowlist(classNames: ["NSArray"]).check(graph).admitsEverything)
        let strict = ArchiveClassAllowlist(classNames: ["NSArray"], primitives: [.integers]).check(graph)
        #expect(strict.refusalCount == 3)
        #expect(strict.refusals.map(\.keyPath.description) == ["root[0]", "root[1]", "root[2]"])
        // A plain array with no $class, and a field that refers to a class dictionary.
        let odd = try ArchiveGraph(bytes: try Self.archive([
            "$null",
            ["$class": Self.uid(2), "list": Self.uid(3), "kind": Self.uid(2)],
            Self.classDictionary(["Holder", "NSObject"]),
            [Self.uid(0)],
        ]))
        let report = ArchiveClassAllowlist(classNames: ["Holder"]).check(odd)
        #expect(report.refusals.map(\.code) == [.classNotAllowed, .invalidReference])
        #expect(report.refusals.map(\.keyPath.description) == ["root.list", "root.kind"])
    }

    @Test func allowlistWalkIsLinearOnDeepAndExplosiveGraphs() throws {
        let deep = try ArchiveGraph(propertyList: HostileShapeTests.chain(depth: 100_000))
        let report = ArchiveClassAllowlist(classNames: []).check(deep, maximumReported: 2)
        #expect(report.refusalCount == 100_000)
        #expect(report.refusals.count == 2)
        #expect(report.refusals.last?.keyPath.components.count == 2)
        let laughs = try ArchiveGraph(propertyList: HostileShapeTests.laughs(levels: 64))
        #expect(ArchiveClassAllowlist(classNames: ["NSArray"]).check(laughs).checkedObjectCount == 64)
    }

    /// Objects reachable from `$top` through references in fields (not `$class`), counted
    /// with a plain set-based search.
    static func reachableObjectCount(_ graph: ArchiveGraph) -> Int {
        var seen: Set<UInt64> = []
        var stack: [PropertyListUID] = graph.top.compactMap(\.uid)
        while let uid = stack.popLast() {
            guard seen.insert(uid.value).inserted else { continue }
            guard case .instance(let instance)? = graph.object(uid) else { continue }
            for entry in instance.fields {
                stack.append(contentsOf: ArchiveGraph.references(in: entry.value))
            }
        }
        return seen.count
    }
}
