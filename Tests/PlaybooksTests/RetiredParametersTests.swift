import Testing

@testable import Playbooks

@Suite("parameters a release removed or renamed, set as the running release knows them")
struct RetiredParametersTests {
    typealias Parameter = ClusterModel.Parameter

    @Test("dropped from the release that removed them, renamed where it renamed them, kept before")
    func releases() {
        let inventory = [
            Parameter(option: "stats_temp_directory", value: .string("/var/lib/pgsql_stats_tmp")),
            Parameter(option: "wal_keep_segments", value: .integer(64)),
            Parameter(option: "force_parallel_mode", value: .string("off")),
            Parameter(option: "work_mem", value: .string("16MB")),
        ]
        let options = { (release: Int) in RetiredParameters.on(release, inventory).map(\.option) }
        #expect(options(12) == ["stats_temp_directory", "wal_keep_segments", "force_parallel_mode", "work_mem"])
        #expect(options(13) == ["stats_temp_directory", "wal_keep_size", "force_parallel_mode", "work_mem"])
        #expect(RetiredParameters.on(13, inventory)[1].value == .string("1024MB"))
        #expect(options(15) == ["wal_keep_size", "force_parallel_mode", "work_mem"])
        #expect(options(17) == ["wal_keep_size", "debug_parallel_query", "work_mem"])
        // A successor set too wins: the retired name is only dropped.
        let both = inventory + [Parameter(option: "wal_keep_size", value: .string("2GB"))]
        #expect(RetiredParameters.on(15, both).filter { $0.option == "wal_keep_size" }.map(\.value) == [.string("2GB")])
        #expect(RetiredParameters.sizeOfSegments(.string("8")) == .string("128MB"))
        #expect(RetiredParameters.sizeOfSegments(.string("1GB")) == .string("1GB"))
    }

    @Test("the model upgraded to 15 renders no parameter 15 lacks")
    func upgradedModel() throws {
        var model = try UpgradeFlowTests().model()
        model.parameters.append(Parameter(option: "stats_temp_directory", value: .string("/var/lib/pgsql_stats_tmp")))
        #expect(model.clusterParameters.contains { $0.option == "stats_temp_directory" })
        #expect(!(try model.upgraded(to: 15)).clusterParameters.contains { $0.option == "stats_temp_directory" })
    }
}
