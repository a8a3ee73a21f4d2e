#!/bin/bash
# Captures mqadmin 4.9.7's output of the main commands (see tests/data/mqadmin/README.md).
# usage: capture.sh <tool> <outdir>   tool: the mqadmin launcher or build/bin/qrocket-admin
T=$1; OUT=$2; N=127.0.0.1:19876; B=127.0.0.1:20911
mkdir -p $OUT
run() { name=$1; shift; "$T" "$@" -n $N > $OUT/$name.txt 2> $OUT/$name.err; echo "$name rc=$?"; }
MSGID=$(cat /tmp/admin-rmq/offsetmsgid); UNIQ=$(cat /tmp/admin-rmq/uniqkey)
run clusterList clusterList
run clusterList-m clusterList -m
run brokerStatus brokerStatus -b $B
run topicList topicList
run topicList-c topicList -c
run topicRoute topicRoute -t AdminT1
run topicRoute-l topicRoute -t AdminT1 -l
run topicStatus topicStatus -t AdminT1
run topicClusterList topicClusterList -t AdminT1
run consumerProgress consumerProgress
run consumerProgress-g consumerProgress -g AdminG1
run consumerConnection consumerConnection -g AdminG1
run consumerStatus consumerStatus -g AdminG1
run brokerConsumeStats brokerConsumeStats -b $B
run getBrokerConfig getBrokerConfig -b $B
run getNamesrvConfig getNamesrvConfig
run getConsumerConfig getConsumerConfig -g AdminG1
run queryMsgByKey queryMsgByKey -t AdminT1 -k key1
run queryMsgById queryMsgById -i $MSGID
run queryMsgByUniqueKey queryMsgByUniqueKey -t AdminT1 -i $UNIQ
run queryMsgByOffset queryMsgByOffset -t AdminT1 -b broker-a -i 1 -o 0
run statsAll statsAll -t AdminT1
run allocateMQ allocateMQ -t AdminT1 -i 10.0.0.1,10.0.0.2
run sendMessage sendMessage -t AdminT1 -p capture -k capkey -c TagB
run checkMsgSendRT checkMsgSendRT -t AdminT1 -a 3
run updateTopic updateTopic -c DefaultCluster -t AdminT2 -r 2 -w 2
run updateSubGroup updateSubGroup -c DefaultCluster -g AdminG2
run resetOffsetByTime resetOffsetByTime -g AdminG1 -t AdminT1 -s now
run skipAccumulatedMessage skipAccumulatedMessage -g AdminG1 -t AdminT1
run cloneGroupOffset cloneGroupOffset -s AdminG1 -d AdminG3 -t AdminT1
run printMsgByQueue printMsgByQueue -t AdminT1 -a broker-a -i 1 -f true
run updateKvConfig updateKvConfig -s AdminNS -k k1 -v v1
run deleteKvConfig deleteKvConfig -s AdminNS -k k1
run wipeWritePerm wipeWritePerm -b broker-a
run addWritePerm addWritePerm -b broker-a
run deleteSubGroup deleteSubGroup -c DefaultCluster -g AdminG2
run deleteTopic deleteTopic -c DefaultCluster -t AdminT2
run storeFiles storeFiles -b $B
