#!/bin/bash
bash /tmp/repo/.gpu/s8_branch.sh 01 0-15 01_eager_mode 300
