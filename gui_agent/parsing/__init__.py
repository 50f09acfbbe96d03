"""Screen parsing: pixels -> typed UI elements in reading order."""
