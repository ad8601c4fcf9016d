# Thin aliases onto the xtask; the README's commands are the source of truth.
demo:
    cargo xtask demo
test:
    cargo xtask test
guests:
    cargo xtask guests
bench:
    cargo xtask bench
fuzz:
    cargo xtask fuzz
toolchain:
    cargo xtask toolchain
