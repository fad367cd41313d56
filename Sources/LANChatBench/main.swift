// Placeholder until the benchmark command lands.
print("lanchat-bench: not built yet")
