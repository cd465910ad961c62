# Keel — two commands for a fresh Debian 12 machine, as root:
#   make demo   installs what is needed, builds Keel, brings up the lab and deploys the cluster on it
#   make test   installs what is needed and runs the whole test suite (after checking the code's format)
#   make format rewrites the Swift sources in the project's format (.swift-format)

SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

APT_PACKAGES := libssh2-1-dev libcrypt-dev libyaml-dev pkg-config openssh-server openssh-client sudo python3-pip
KEEL := .build/debug/keel

.PHONY: demo test deps build lint format clean

SWIFT_SOURCES := Sources playbooks Tests Package.swift

demo: deps build
	scripts/demo

# Builds Keel and its tests, checks the format and runs the suite (Tests/run-all).
test: deps
	Tests/run-all

build:
	swift build

# Fails when a Swift file strays from .swift-format (`make format` fixes it) or the code breaks a structure rule
# (Sources/KeelLint: each violation says what to do).
lint:
	swift format lint --strict --recursive --parallel $(SWIFT_SOURCES)
	swift run --skip-build keel-lint

format:
	swift format --in-place --recursive --parallel $(SWIFT_SOURCES)

# Installs the Debian packages Keel builds and tests with (needs root; skipped when all are present).
deps:
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
		if [ "$$(id -u)" != 0 ]; then echo "run as root to install: $(APT_PACKAGES)"; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 $(APT_PACKAGES); \
	fi
	@command -v swift >/dev/null || { echo "Swift 6 is needed: put its bin directory on PATH (looked in /opt/swift/usr/bin)"; exit 1; }

clean:
	rm -rf .build
