print("lanchat: not built yet")
