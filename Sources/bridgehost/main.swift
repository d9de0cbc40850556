print("bridgehost")
