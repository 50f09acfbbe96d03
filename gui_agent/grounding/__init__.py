"""From a target description to a point on the screen."""
