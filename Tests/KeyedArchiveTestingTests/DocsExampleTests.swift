import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

/// The worked example of Docs/Testing.md, run: the model with the key typo, the app's fixture
/// with a field the model does not know, and the failure texts the document quotes.
struct DocsAirplane: KeyedArchivable {
    var model: String
    var registrationNumber: String
    var airframeHours: Int

    init(model: String, registrationNumber: String, airframeHours: Int) {
        self.model = model
        self.registrationNumber = registrationNumber
        self.airframeHours = airframeHours
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        model = try decoder.decode(String.self, forKey: "model")
        registrationNumber = try decoder.decode(String.self, forKey: "registraionNumber")
        airframeHours = try decoder.decode(Int.self, forKey: "airframeHours")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(model, forKey: "model")
        try encoder.encode(registrationNumber, forKey: "registrationNumber")
        try encoder.encode(airframeHours, forKey: "airframeHours")
    }
}

@Suite(.archiveRecording(.missing)) struct DocsExampleTests {
    @Test func failureTextsOfTheWorkedExample() throws {
        var registry = ArchiveRegistry()
        registry.register(DocsAirplane.self, className: "Airplane")
        let directory = try Fixtures.directory()
        let app = directory.appendingPathComponent("airplane-app.plist").path
        try Data(Fixtures.appArchive()).write(to: URL(fileURLWithPath: app))
        let cessna = DocsAirplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40)
        let decoding = ArchiveExpectations.checkDecoding(DocsAirplane.self, fixture: app, registry: registry, equals: cessna)
        #expect(decoding?.hasPrefix("could not decode \(app) as DocsAirplane: valueNotFound at root.registraionNumber (object #1)") == true, "\(decoding ?? "")")
        let unread = ArchiveExpectations.checkUnreadFields(DocsAirplane.self, fixture: app, registry: registry)
        #expect(unread?.hasPrefix("could not decode") == true)
        let service = directory.appendingPathComponent("airplane-service.plist").path
        let snapshot = ArchiveExpectations.checkSnapshot(of: cessna, registry: registry, fixture: service)
        #expect(snapshot?.hasPrefix("recorded \(service) (") == true && snapshot?.hasSuffix(" bytes) because there was no fixture; check it in and run the test again") == true)
        let roundTrip = ArchiveExpectations.checkRoundTrip(cessna, registry: registry)
        #expect(roundTrip?.hasPrefix("DocsAirplane does not decode what it encodes: valueNotFound at root.registraionNumber (object #1)") == true, "\(roundTrip ?? "")")
    }
}
