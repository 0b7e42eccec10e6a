#!/bin/sh
# A team's cleanup that deletes the previous user's documents and forgets caches and preferences.
rm -rf "$SDLAB_CONTAINER/documents/$SDLAB_PREVIOUS_USER"
