claude mcp add bwgate -- bwgate mcp
