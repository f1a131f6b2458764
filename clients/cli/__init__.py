"""`svc`: the command line of svc (spec 2 §4). Parser, command logic and rendering live apart:
`parser` turns argv into a namespace, `commands` maps it onto API v1 calls and returns results,
`render` writes them; exit statuses come from `exitcodes`."""
