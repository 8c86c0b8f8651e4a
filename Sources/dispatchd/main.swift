print("dispatchd: under construction")
