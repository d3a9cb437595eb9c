#!/usr/bin/env python3
"""A tiny Flink REST client for the e2e scripts (no curl/jq needed).

Usage: rest.py URL [EXPR] [--post JSON]

GETs (or POSTs JSON to) URL, parses the JSON answer as `j` and prints the Python expression EXPR
over it (default: the whole answer): None prints nothing, booleans print true/false, strings as
they are, anything else as JSON. Exits 1 on a connection or HTTP error or when EXPR fails.
"""
import json
import sys
import urllib.request


def main():
    args = sys.argv[1:]
    body = None
    if '--post' in args:
        i = args.index('--post')
        body = args[i + 1].encode('utf-8')
        del args[i:i + 2]
    url = args[0]
    expr = args[1] if len(args) > 1 else 'j'
    request = urllib.request.Request(url, data=body, method='POST' if body is not None else 'GET')
    if body is not None:
        request.add_header('Content-Type', 'application/json')
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            j = json.loads(response.read().decode('utf-8') or 'null')
    except Exception as e:  # connection refused, HTTP error, timeout
        print(f'rest.py: {url}: {e}', file=sys.stderr)
        return 1
    try:
        value = eval(expr, {'j': j})
    except Exception as e:
        print(f'rest.py: {expr}: {e!r}', file=sys.stderr)
        return 1
    if value is None:
        return 0
    if isinstance(value, bool):
        print('true' if value else 'false')
    elif isinstance(value, str):
        print(value)
    else:
        print(json.dumps(value))
    return 0


if __name__ == '__main__':
    sys.exit(main())
