from elicitkit.cli import main

main()
