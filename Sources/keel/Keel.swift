import ArgumentParser
@main struct KeelCommand: AsyncParsableCommand { func run() async throws {} }
