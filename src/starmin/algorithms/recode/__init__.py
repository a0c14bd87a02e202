"""Local recoding to hierarchy nodes under the loss (or stars) objective (issue 9, part 4)."""
