from remnant.cli import main

main()
