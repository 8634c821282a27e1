#!/bin/bash
bash /tmp/repo/.gpu/s8_branch.sh 05 16-31 05_dynamic_shapes 240
