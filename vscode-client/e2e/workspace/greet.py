def greet(name):
    return f"Hello, {name}!"


if __name__ == "__main__":
    print(greet("world"))
