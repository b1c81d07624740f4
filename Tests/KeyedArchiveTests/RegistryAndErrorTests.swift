import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// A model that counts its initializer runs, to prove refusals happen before any init.
final class InitSpy: KeyedArchivable {
    static let initCount = Locked(0)
    let label: String
    init(label: String) { self.label = label }
    init(from decoder: KeyedArchiveDecoder) throws {
        InitSpy.initCount.withLock { $0 += 1 }
        label = try decoder.decode(String.self, forKey: "label")
    }
    func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(label, forKey: "label") }
}

/// A node that (wrongly) decodes its parent eagerly: a cycle the decoder must refuse, not loop on.
final class EagerNode: KeyedArchivable {
    var child: EagerNode?
    var parent: EagerNode?
    init() {}
    init(from decoder: KeyedArchiveDecoder) throws {
        child = try decoder.decodeIfPresent(EagerNode.self, forKey: "child")
        parent = try decoder.decodeIfPresent(EagerNode.self, forKey: "parent")
    }
    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(child, forKey: "child")
        try encoder.encodeConditional(parent, forKey: "parent")
    }
}

/// A linked list, for depth limits.
final class ListNode: KeyedArchivable {
    var next: ListNode?
    init(next: ListNode?) { self.next = next }
    init(from decoder: KeyedArchiveDecoder) throws { next = try decoder.decodeIfPresent(ListNode.self, forKey: "next") }
    func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(next, forKey: "next") }
}

/// A model with every scalar accessor, keys starting with `$`, and optional fields.
struct Everything: KeyedArchivable, Equatable {
    var flag = true
    var int8: Int8 = -8, int16: Int16 = -16, int32: Int32 = -32, int64: Int64 = .min, int: Int = -1
    var uint8: UInt8 = 8, uint16: UInt16 = 16, uint32: UInt32 = .max, uint64: UInt64 = .max, uint: UInt = 42
    var float: Float = 1.5, double: Double = -0.0
    var bytes: [UInt8] = [0, 1, 2, 255]
    var data = Data([9, 8, 7])
    var text = "héllo \u{1F600} e\u{301}"
    var dollar = "$class is escaped"
    var date = Date(timeIntervalSinceReferenceDate: -1.25)
    var url = URL(string: "index.xml", relativeTo: URL(string: "https://www.swift.org/"))
    var uuid = UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22")
    var numbers: [Int] = [1, 2, 3]
    var nested: [[String]] = [["a"], [], ["b", "c"]]
    var set: Set<String> = ["x", "y"]
    var missing: String?

    init() {}

    init(from decoder: KeyedArchiveDecoder) throws {
        flag = try decoder.decode(Bool.self, forKey: "flag")
        int8 = try decoder.decode(Int8.self, forKey: "int8")
        int16 = try decoder.decode(Int16.self, forKey: "int16")
        int32 = try decoder.decode(Int32.self, forKey: "int32")
        int64 = try decoder.decode(Int64.self, forKey: "int64")
        int = try decoder.decode(Int.self, forKey: "int")
        uint8 = try decoder.decode(UInt8.self, forKey: "uint8")
        uint16 = try decoder.decode(UInt16.self, forKey: "uint16")
        uint32 = try decoder.decode(UInt32.self, forKey: "uint32")
        uint64 = try decoder.decode(UInt64.self, forKey: "uint64")
        uint = try decoder.decode(UInt.self, forKey: "uint")
        float = try decoder.decode(Float.self, forKey: "float")
        double = try decoder.decode(Double.self, forKey: "double")
        bytes = try decoder.decodeBytes(forKey: "bytes")
        data = try decoder.decode(Data.self, forKey: "data")
        text = try decoder.decode(String.self, forKey: "text")
        dollar = try decoder.decode(String.self, forKey: "$class")
        date = try decoder.decode(Date.self, forKey: "date")
        url = try decoder.decodeIfPresent(URL.self, forKey: "url")
        uuid = try decoder.decodeIfPresent(UUID.self, forKey: "uuid")
        numbers = try decoder.decode([Int].self, forKey: "numbers")
        nested = try decoder.decode([[String]].self, forKey: "nested")
        set = try decoder.decode(Set<String>.self, forKey: "set")
        missing = try decoder.decodeIfPresent(String.self, forKey: "missing")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(flag, forKey: "flag")
        try encoder.encode(int8, forKey: "int8")
        try encoder.encode(int16, forKey: "int16")
        try encoder.encode(int32, forKey: "int32")
        try encoder.encode(int64, forKey: "int64")
        try encoder.encode(int, forKey: "int")
        try encoder.encode(uint8, forKey: "uint8")
        try encoder.encode(uint16, forKey: "uint16")
        try encoder.encode(uint32, forKey: "uint32")
        try encoder.encode(uint64, forKey: "uint64")
        try encoder.encode(uint, forKey: "uint")
        try encoder.encode(float, forKey: "float")
        try encoder.encode(double, forKey: "double")
        try encoder.encodeBytes(bytes, forKey: "bytes")
        try encoder.encode(data, forKey: "data")
        try encoder.encode(text, forKey: "text")
        try encoder.encode(dollar, forKey: "$class")
        try encoder.encode(date, forKey: "date")
        try encoder.encode(url, forKey: "url")
        try encoder.encode(uuid, forKey: "uuid")
        try encoder.encode(numbers, forKey: "numbers")
        try encoder.encode(nested, forKey: "nested")
        try encoder.encode(set, forKey: "set")
        try encoder.encode(missing, forKey: "missing")
    }
}

// Serialized: InitSpy's initializer counter is process-wide, and aliasesAdmitRenamedClasses
// decodes an InitSpy; run in parallel, it could bump the count another test asserts is zero.
@Suite(.serialized) struct RegistryAndErrorTests {
    static func decodeError(_ body: () throws(ArchiveError) -> Void) -> ArchiveError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func everyAccessorRoundTrips(format: ArchiveFormat) throws {
        var registry = ArchiveRegistry()
        registry.register(Everything.self)
        let value = Everything()
        // Its −0 cannot be carried by XML: refused by default; this test reads what Core
        // Foundation's writer makes of it.
        var options = ArchiveWritingOptions()
        if format == .xml {
            let refusal = #expect(throws: ArchiveError.self) { try KeyedArchiver.archive(value, registry: registry, format: format) }
            #expect(refusal?.code == .unrepresentableValue)
            #expect(refusal?.keyPath.description == "root.double")
            options.xmlValueLoss = .acceptAsCoreFoundation
        }
        let bytes = try KeyedArchiver.archive(value, registry: registry, format: format, options: options)
        let decoded = try KeyedUnarchiver.unarchive(Everything.self, from: bytes, registry: registry)
        #expect(decoded == value)
        // XML keeps neither a real's width nor the sign of zero: Core Foundation writes -0.0 as
        // 0.0 and every <real> reads back as a double. Binary keeps both.
        #expect(decoded.double.sign == (format == .binary ? .minus : .plus))
        #expect(decoded.text.unicodeScalars.elementsEqual(value.text.unicodeScalars))
        // `$class` as a user key is stored escaped and cannot pass for the real one.
        let graph = try ArchiveGraph(bytes: bytes)
        guard case .instance(let instance)? = graph.topUID(forKey: "root").flatMap(graph.object) else {
            Issue.record("root is not an instance")
            return
        }
        #expect(instance.value(forStoredKey: "$$class") != nil)
        #expect(graph.className(of: graph.topUID(forKey: "root") ?? PropertyListUID(0)) == "Everything")
        // Inline scalars are inline; UInt64 is an NSNumber object, as Foundation stores it.
        #expect(instance.value(forStoredKey: "int32") == .integer(-32))
        #expect(instance.value(forStoredKey: "float") == .real(format == .binary ? .float32(1.5) : .float64(1.5)))
        if case .uid(let uid)? = instance.value(forStoredKey: "uint64"), case .integer(let number)? = graph.object(uid) {
            #expect(number == PropertyListInteger(UInt64.max))
            #expect(number.isStoredAs128Bit)
        } else {
            Issue.record("uint64 is not a reference to a number")
        }
    }

    @Test func unregisteredClassIsRefusedBeforeAnyInitializerRuns() throws {
        var writer = ArchiveRegistry()
        writer.register(InitSpy.self, className: "Glider")
        let bytes = try KeyedArchiver.archive([InitSpy(label: "a")], registry: writer)
        InitSpy.initCount.withLock { $0 = 0 }
        // The reader knows the fleet, where Glider is a kind of Airplane, but asks for pilots.
        let error = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([Pilot].self, from: bytes, registry: Fleet.registry) }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.keyPath.description == "root[0]")
        #expect(error?.uid == PropertyListUID(2))
        #expect(error?.classChain == ["Glider", "NSObject"])
        // A registry without the name refuses it too.
        var spyless = ArchiveRegistry()
        spyless.register(Pilot.self)
        let unknown = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([Pilot].self, from: bytes, registry: spyless) }
        #expect(unknown?.code == .classNotAllowed)
        #expect(InitSpy.initCount.withLock { $0 } == 0)
    }

    @Test func familyAdmitsExactlyItsRegisteredMembers() throws {
        let bytes = try KeyedArchiver.archive(Fleet.makePilots()[0].airplanes, registry: Fleet.registry)
        // Airplane admits PoweredAirplane and Glider.
        let airplanes = try KeyedUnarchiver.unarchive([Airplane].self, from: bytes, registry: Fleet.registry)
        #expect(airplanes.count == 2)
        // Glider does not admit PoweredAirplane.
        let error = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([Glider].self, from: bytes, registry: Fleet.registry) }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.keyPath.description == "root[0]")
        #expect(error?.classChain == ["PoweredAirplane", "Airplane", "NSObject"])
        // Without the Glider registration, the archive's claim that Glider is an Airplane does not help.
        var partial = ArchiveRegistry()
        partial.register(Airplane.self)
        partial.register(PoweredAirplane.self, superclass: Airplane.self)
        partial.register(Pilot.self)
        let refused = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([Airplane].self, from: bytes, registry: partial) }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.keyPath.description == "root[1]")
    }

    @Test func aSuperclassAskedForAsItsSubclassGetsAdviceThatWorks() throws {
        // An Airplane asked for as a Glider: registering anything would be wrong (registering
        // Airplane under Glider traps, as it is not a subclass); asking for Airplane is right.
        let bytes = try KeyedArchiver.archive(Airplane(model: "C172", registrationNumber: "N1", airframeHours: 1), registry: Fleet.registry)
        let error = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Glider.self, from: bytes, registry: Fleet.registry) }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.message.hasPrefix("class Airplane is not a kind of Glider") == true, "\(String(describing: error))")
        #expect(error?.remedy == "decode it as Airplane, the superclass it is, and check for Glider with as?")
        #expect(try KeyedUnarchiver.unarchive(Airplane.self, from: bytes, registry: Fleet.registry) as? Glider == nil)
        // A registered class of another family keeps the registration advice.
        let pilot = try KeyedArchiver.archive(Fleet.makePilots()[0], registry: Fleet.registry)
        let other = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Airplane.self, from: pilot, registry: Fleet.registry) }
        #expect(other?.remedy?.hasPrefix("none for Airplane: Pilot is registered as Pilot") == true, "\(String(describing: other?.remedy))")
    }

    /// A subclass registered without `superclass:` is put under its registered superclass (found
    /// by itself, so that `$classes` lists it as Apple's archiver does); a subclass registered
    /// before its superclass is a programming error, stopped where it is made.
    @Test func aSubclassIsRegisteredUnderItsRegisteredSuperclass() async throws {
        var registry = ArchiveRegistry()
        registry.register(Airplane.self)
        registry.register(Glider.self)
        #expect(registry.entry(forType: Glider.self).map(registry.classChain(of:)) == ["Glider", "Airplane", "NSObject"])
#if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)
        // Exit tests run the body in a child process, which iOS, tvOS, watchOS and visionOS
        // do not allow.
        await #expect(processExitsWith: .failure) {
            var registry = ArchiveRegistry()
            registry.register(Glider.self)
            registry.register(Airplane.self)
        }
        await #expect(processExitsWith: .success) {
            var registry = ArchiveRegistry()
            registry.register(Airplane.self)
            registry.register(Glider.self, superclass: Airplane.self)
            // Alone, a subclass stands for itself: its superclass is not in the registry.
            var alone = ArchiveRegistry()
            alone.register(Glider.self)
        }
#endif
    }

    @Test func sharedObjectIsCheckedOnEveryReference() throws {
        let glider = Fleet.makePilots()[0].airplanes[1]
        // Both top-level keys name the same glider object.
        let archiver = KeyedArchiver(registry: Fleet.registry)
        try archiver.encode(glider, forKey: "plane")
        try archiver.encode(glider, forKey: "pilot")
        let bytes = try archiver.finish()
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: Fleet.registry)
        let plane = try unarchiver.decode(Airplane.self, forKey: "plane")
        #expect(plane is Glider)
        let error = Self.decodeError { () throws(ArchiveError) in _ = try unarchiver.decode(Pilot.self, forKey: "pilot") }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.keyPath.description == "pilot")
        // A failed unarchiver stays failed: no half graph.
        #expect(Self.decodeError { () throws(ArchiveError) in _ = try unarchiver.decode(Airplane.self, forKey: "plane") }?.code == .invalidState)
    }

    @Test func typedErrorsCarryTheKeyPath() throws {
        // A pilot whose fourth airplane has a number for its registration.
        func airplane(_ registration: PropertyListValue) -> ArchiveGenericObject {
            ArchiveGenericObject(classes: ["Airplane", "NSObject"], fields: [
                ("model", .object("Cub")),
                ("registrationNumber", registration.stringValue.map { .object($0) } ?? .inline(registration)),
                ("airframeHours", .object(UInt64(1))),
            ])
        }
        let planes = (0..<4).map { $0 == 3 ? airplane(.integer(7)) : airplane(.string("N\($0)")) }
        let pilot = ArchiveGenericObject(classes: ["Pilot", "NSObject"], fields: [
            ("name", .object("Amelia")),
            ("airplanes", .object(ArchiveGenericObject(classes: ["NSArray", "NSObject"], fields: [("NS.objects", .objects(planes))]))),
            ("notes", .object([String: String]())),
        ])
        let bytes = try KeyedArchiver.archive(pilot, registry: ArchiveRegistry())
        let error = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Pilot.self, from: bytes, registry: Fleet.registry) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath.description == "root.airplanes[3].registrationNumber")
        #expect(error?.uid != nil)

        // A required key that is missing.
        let nameless = ArchiveGenericObject(classes: ["Pilot", "NSObject"], fields: [])
        let missing = Self.decodeError { () throws(ArchiveError) in
            _ = try KeyedUnarchiver.unarchive(Pilot.self, from: try KeyedArchiver.archive(nameless, registry: ArchiveRegistry()), registry: Fleet.registry)
        }
        #expect(missing?.code == .valueNotFound)
        #expect(missing?.keyPath.description == "root.name")
    }

    @Test func integersMustFitExactly() throws {
        let object = ArchiveGenericObject(classes: ["PoweredAirplane", "Airplane", "NSObject"], fields: [
            ("model", .object("Cub")), ("registrationNumber", .object("N1")), ("airframeHours", .inline(.integer(-1))),
            ("engineHorsepower", .inline(.integer(PropertyListInteger(Int64(Int32.max) + 1)))), ("engineHours", .inline(.integer(0))),
        ])
        let bytes = try KeyedArchiver.archive(object, registry: ArchiveRegistry())
        let error = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Airplane.self, from: bytes, registry: Fleet.registry) }
        #expect(error?.code == .valueOutOfRange)
        #expect(error?.keyPath.description == "root.engineHorsepower")
    }

    @Test func eagerCycleIsAnErrorNotALoop() throws {
        var registry = ArchiveRegistry()
        registry.register(EagerNode.self)
        let parent = EagerNode(), child = EagerNode()
        parent.child = child
        child.parent = parent
        let bytes = try KeyedArchiver.archive(parent, registry: registry)
        let error = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(EagerNode.self, from: bytes, registry: registry) }
        #expect(error?.code == .cyclicReference)
        #expect(error?.keyPath.description == "root.child.parent")
        #expect(error?.uid == PropertyListUID(1))
    }

    @Test func conditionalReferencesFollowApple() throws {
        let pilots = Fleet.makePilots()
        let cub = pilots[0].airplanes[0]
        // The owner is encoded after the airplane: the forward reference is kept.
        let archiver = KeyedArchiver(registry: Fleet.registry)
        try archiver.encode(cub, forKey: "plane")
        try archiver.encode(pilots[0], forKey: "pilot")
        let unarchiver = try KeyedUnarchiver(bytes: try archiver.finish(), registry: Fleet.registry)
        let plane = try unarchiver.decode(Airplane.self, forKey: "plane")
        let pilot = try unarchiver.decode(Pilot.self, forKey: "pilot")
        #expect(plane.owner === pilot)
        #expect(pilot.airplanes.first === plane)
        // The owner is never encoded unconditionally: the reference is dropped ($null).
        let alone = try KeyedArchiver.archive(cub, registry: Fleet.registry)
        let graph = try ArchiveGraph(bytes: alone)
        #expect(graph.objects.contains { if case .instance = $0 { return graph.objects.count > 0 } else { return false } })
        #expect(!(0..<graph.objects.count).contains { graph.className(of: PropertyListUID(UInt64($0))) == "Pilot" })
        let decodedAlone = try KeyedUnarchiver.unarchive(Airplane.self, from: alone, registry: Fleet.registry)
        #expect(decodedAlone.owner == nil)
    }

    @Test func depthLimitsBothWays() throws {
        var registry = ArchiveRegistry()
        registry.register(ListNode.self)
        var head: ListNode?
        for _ in 0..<300 { head = ListNode(next: head) }
        guard let head else { return }
        let bytes = try KeyedArchiver.archive(head, registry: registry)
        var decoded: ListNode? = try KeyedUnarchiver.unarchive(ListNode.self, from: bytes, registry: registry)
        var length = 0
        while let node = decoded { length += 1; decoded = node.next }
        #expect(length == 300)
        var strict = ArchiveReadingOptions()
        strict.maximumDepth = 299
        let error = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(ListNode.self, from: bytes, registry: registry, options: strict) }
        #expect(error?.code == .depthLimitExceeded)
        strict.maximumDepth = 300
        #expect(throws: Never.self) { _ = try KeyedUnarchiver.unarchive(ListNode.self, from: bytes, registry: registry, options: strict) }
        var shallow = ArchiveWritingOptions()
        shallow.maximumDepth = 100
        let encodeError = Self.decodeError { () throws(ArchiveError) in _ = try KeyedArchiver.archive(head, registry: registry, options: shallow) }
        #expect(encodeError?.code == .depthLimitExceeded)
    }

    /// A model that asks for a key its archive does not have (a rename between versions).
    struct RenamedKey: KeyedArchivable {
        init() {}
        init(from decoder: KeyedArchiveDecoder) throws { _ = try decoder.decode(String.self, forKey: "registration") }
        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode("D-8721", forKey: "registrationNumber")
            try encoder.encode(1, forKey: "hours")
        }
    }

    @Test func aMissingKeyIsShownBesideTheKeysThereAre() throws {
        var registry = ArchiveRegistry()
        registry.register(RenamedKey.self)
        for format in [ArchiveFormat.binary, .xml] {
            let bytes = try KeyedArchiver.archive(RenamedKey(), registry: registry, format: format)
            let error = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(RenamedKey.self, from: bytes, registry: registry) }
            #expect(error?.code == .valueNotFound)
            #expect(error?.keyPath.description == "root.registration")
            #expect(error?.message.hasPrefix("expected String, found no value (the object's keys: ") == true, "\(String(describing: error))")
            #expect(error?.message.contains("\"registrationNumber\"") == true && error?.message.contains("\"hours\"") == true)
            #expect(error?.message.contains("$class") == false)
        }
    }

    /// A model's own error, thrown while it decodes and while it encodes.
    struct Refusing: KeyedArchivable {
        enum Reason: Error, Equatable { case tooOld(Int) }
        var failsEncoding = false
        init(failsEncoding: Bool) { self.failsEncoding = failsEncoding }
        init(from decoder: KeyedArchiveDecoder) throws { throw Reason.tooOld(try decoder.decode(Int.self, forKey: "version")) }
        func encode(to encoder: KeyedArchiveEncoder) throws {
            if failsEncoding { throw Reason.tooOld(0) }
            try encoder.encode(3, forKey: "version")
        }
    }

    @Test func aModelsOwnErrorCanBeCaughtAgain() throws {
        var registry = ArchiveRegistry()
        registry.register(Refusing.self)
        let bytes = try KeyedArchiver.archive(Refusing(failsEncoding: false), registry: registry)
        let decoding = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Refusing.self, from: bytes, registry: registry) }
        #expect(decoding?.code == .modelError)
        #expect(decoding?.underlyingError as? Refusing.Reason == .tooOld(3))
        let encoding = Self.decodeError { () throws(ArchiveError) in _ = try KeyedArchiver.archive(Refusing(failsEncoding: true), registry: registry) }
        #expect(encoding?.code == .modelError)
        #expect(encoding?.underlyingError as? Refusing.Reason == .tooOld(0))
    }

    /// An Airplane subclass the fleet's registry does not know.
    final class Seaplane: Airplane {}

    @Test func unregisteredTypeCannotBeEncoded() {
        let error = Self.decodeError { () throws(ArchiveError) in _ = try KeyedArchiver.archive(ListNode(next: nil), registry: ArchiveRegistry()) }
        #expect(error?.code == .typeNotRegistered)
        #expect(error?.keyPath.description == "root")
        #expect(error?.remedy == "registry.register(ListNode.self)")
        // An unregistered subclass inside an array: the path is the one decoding would name,
        // and the advice names the registered superclass.
        let pilot = Pilot(name: "Amelia", airplanes: [Airplane(model: "C172", registrationNumber: "N1", airframeHours: 1),
                                                      Seaplane(model: "DHC-2", registrationNumber: "C-FOSP", airframeHours: 2)])
        let nested = Self.decodeError { () throws(ArchiveError) in _ = try KeyedArchiver.archive(pilot, registry: Fleet.registry) }
        #expect(nested?.code == .typeNotRegistered)
        #expect(nested?.keyPath.description == "root.airplanes[1]")
        #expect(nested?.remedy == "registry.register(Seaplane.self, superclass: Airplane.self)")
        // Dictionaries' values by their keys, and mixed arrays by index, as decoding names them.
        let cessna = Airplane(model: "C172", registrationNumber: "N1", airframeHours: 1)
        let beaver = Seaplane(model: "DHC-2", registrationNumber: "C-FOSP", airframeHours: 2)
        let byName = Self.decodeError { () throws(ArchiveError) in _ = try KeyedArchiver.archive(["a": cessna, "b": beaver], registry: Fleet.registry) }
        #expect(byName?.keyPath.description == "root.b")
        let mixed = Self.decodeError { () throws(ArchiveError) in _ = try KeyedArchiver.archive(ArchiveArray(["x", beaver]), registry: Fleet.registry) }
        #expect(mixed?.keyPath.description == "root[1]")
        let mixedDictionary = Self.decodeError { () throws(ArchiveError) in
            _ = try KeyedArchiver.archive(ArchiveDictionary([(key: "plane", value: beaver)]), registry: Fleet.registry)
        }
        #expect(mixedDictionary?.keyPath.description == "root.plane")
        // A registered subclass of the unregistered type: the advice keeps superclasses first.
        var gliders = ArchiveRegistry()
        gliders.register(Glider.self)
        let superclassMissing = Self.decodeError { () throws(ArchiveError) in
            _ = try KeyedArchiver.archive(Airplane(model: "C172", registrationNumber: "N1", airframeHours: 1), registry: gliders)
        }
        #expect(superclassMissing?.remedy == "registry.register(Airplane.self), before Glider (registered already: register Glider after it, with superclass: Airplane.self)")
    }

    @Test func emptyArchiveDecodesToNil() throws {
        let archiver = KeyedArchiver(registry: Fleet.registry)
        try archiver.encode(nil as Pilot?, forKey: "root")
        let bytes = try archiver.finish()
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: Fleet.registry)
        #expect(try unarchiver.decodeIfPresent(Pilot.self) == nil)
        let error = Self.decodeError { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Pilot.self, from: bytes, registry: Fleet.registry) }
        #expect(error?.code == .valueNotFound)
    }

    @Test func aliasesAdmitRenamedClasses() throws {
        var old = ArchiveRegistry()
        old.register(InitSpy.self, className: "OldModule.Spy")
        let bytes = try KeyedArchiver.archive(InitSpy(label: "x"), registry: old)
        var renamed = ArchiveRegistry()
        renamed.register(InitSpy.self, className: "Spy", aliases: ["OldModule.Spy"])
        #expect(try KeyedUnarchiver.unarchive(InitSpy.self, from: bytes, registry: renamed).label == "x")
        let rewritten = try ArchiveGraph(bytes: try KeyedArchiver.archive(InitSpy(label: "x"), registry: renamed))
        #expect(rewritten.className(of: PropertyListUID(1)) == "Spy")
    }

    @Test func unkeyedValuesUseDollarNumbers() throws {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encodeUnkeyed("first")
        try archiver.encodeUnkeyed([1, 2])
        let bytes = try archiver.finish()
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(Set(graph.top.map(\.key)) == ["$0", "$1"])
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry())
        #expect(try unarchiver.decodeUnkeyed(String.self, at: 0) == "first")
        #expect(try unarchiver.decodeUnkeyed([Int].self, at: 1) == [1, 2])
    }
}
